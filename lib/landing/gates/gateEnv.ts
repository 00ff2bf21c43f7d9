// The environment a gate sees: an allow-list, not the drainer's whole environment. Tokens the
// drainer holds reach a gate only when the policy names them (passEnv), and their values are
// redacted from the stored log.
import type { Gate } from '../../config/index.js';

const ALLOWED = ['PATH', 'HOME', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'CI', 'NO_COLOR'];
// Old names of the batch wrapper's knobs, read as fallbacks (see docs on `land batch`).
const BATCH_PREFIXES = ['NEV_', 'GENERA_'];

export interface TrainEnv {
  LAND_TIP: string;
  LAND_BASE: string;
  LAND_JOB: string;
  LAND_MEMBERS: string;
  LAND_TRAIN: string;
}

/**
 * The environment of a gate, a refresh entry or a notifier (`notify`, with the event's variables in
 * place of the train's): the allow-list, the variables the policy passes by name, its fixed ones.
 */
export function gateEnvironment(
  gate: Pick<Gate, 'env' | 'passEnv' | 'batch'>,
  train: TrainEnv | Readonly<Record<string, string>>,
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(from)) {
    if (value === undefined) continue;
    const allowed =
      ALLOWED.includes(key) ||
      key.startsWith('LC_') ||
      (key.startsWith('LAND_') && key !== 'LAND_TOKEN') ||
      (gate.batch !== undefined && BATCH_PREFIXES.some((prefix) => key.startsWith(prefix)));
    if (allowed) env[key] = value;
  }
  for (const name of gate.passEnv) {
    const value = from[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, gate.env, train);
  return env;
}

/**
 * Values that must not appear in a stored log: those the policy passed through by name. A value of
 * several lines (a PEM key) also counts line by line: a gate that prints it a line at a time never
 * shows the whole value in one piece of output.
 */
export function secretsOf(gate: Pick<Gate, 'passEnv'>, from: NodeJS.ProcessEnv = process.env): string[] {
  const values = gate.passEnv.map((name) => from[name]).filter((value): value is string => typeof value === 'string');
  const pieces = values.flatMap((value) => [value, ...value.split(/\r?\n/).map((line) => line.trim())]);
  return [...new Set(pieces.filter((piece) => piece.length >= 4))];
}
