// Which kind of progress `land run` shows, and whether it is coloured: decided from the stream
// and the environment only, so the rules are unit-tested without a terminal.

export type ProgressMode = 'json' | 'live' | 'plain';

type Env = Readonly<Record<string, string | undefined>>;

/** A variable that is set to something other than "", "0" or "false". */
function isOn(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/**
 * `--json`: JSON events only. A terminal (and not CI, and a TERM that can move the cursor): a live
 * block redrawn in place. Anything else (pipes, files, CI logs): plain lines. NO_COLOR turns the
 * colours off, never the progress itself.
 */
export function progressMode(opts: { json: boolean; isTTY: boolean; env: Env }): ProgressMode {
  if (opts.json) return 'json';
  if (!opts.isTTY || isOn(opts.env.CI) || opts.env.TERM === 'dumb') return 'plain';
  return 'live';
}

/**
 * NO_COLOR (any non-empty value, see no-color.org) turns colours off; FORCE_COLOR (not "0" or
 * "false") turns them on, even into a pipe; otherwise colours only on a terminal outside CI.
 */
export function colorEnabled(opts: { isTTY: boolean; env: Env }): boolean {
  if (opts.env.NO_COLOR !== undefined && opts.env.NO_COLOR !== '') return false;
  if (isOn(opts.env.FORCE_COLOR)) return true;
  return opts.isTTY && !isOn(opts.env.CI) && opts.env.TERM !== 'dumb';
}

export const DEFAULT_HEARTBEAT_SECONDS = 30;

/** LAND_HEARTBEAT_SECONDS: how often plain output says that a gate still runs (default 30 s). */
export function heartbeatSeconds(env: Env): number {
  const raw = env.LAND_HEARTBEAT_SECONDS;
  const value = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_HEARTBEAT_SECONDS;
}
