// Human output and machine output are kept apart: --json writes only JSON to stdout; diagnostics
// and progress go to stderr. Human lines pass through printableLines(): whatever a caller forgot
// to escape, no stored control character reaches the terminal raw (see lib/text/safeText.ts).
import { printable, printableLines } from '../text/safeText.js';

export interface Output {
  json: boolean;
  /** One JSON object (or one event line in a stream). */
  emit(value: unknown): void;
  /** A line for a person (stdout); suppressed under --json. */
  say(line: string): void;
  /** A diagnostic line (stderr), shown in both modes. */
  note(line: string): void;
}

export function makeOutput(json: boolean): Output {
  return {
    json,
    emit: (value) => process.stdout.write(`${JSON.stringify(value)}\n`),
    say: (line) => {
      if (!json) process.stdout.write(`${printableLines(line)}\n`);
    },
    note: (line) => process.stderr.write(`${printableLines(line)}\n`),
  };
}

export function short(sha: string | null | undefined): string {
  return sha ? sha.slice(0, 12) : '-';
}

/** "3m", "2h", "5d": how long ago an ISO time was. */
export function age(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '-';
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/**
 * A branch name as a person should see it: quoted when it holds spaces, quotes or shell characters
 * (JSON quoting), and with control and bidirectional characters escaped.
 */
export function showName(name: string): string {
  return /^[A-Za-z0-9._/@+-]+$/.test(name) ? name : printable(JSON.stringify(name));
}

/** "~40s", "~3m", "~1h20m": an estimate, rounded to what it is worth. */
export function approximately(seconds: number): string {
  const s = Math.max(1, Math.round(seconds));
  if (s < 60) return `~${s}s`;
  if (s < 3600) return `~${Math.round(s / 60)}m`;
  const minutes = Math.round(s / 60);
  return `~${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
