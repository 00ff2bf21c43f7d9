// Failpoints, for tests only: `LAND_FAILPOINT=<name>` (or `<name>@<n>`, the n-th time the point is
// reached; several separated by commas) makes the CLI kill itself with SIGKILL at that point, as a
// crash or `kill -9` would, so a test can prove that nothing is lost wherever the process dies.
// `enospc-write` does not kill: it makes the n-th write of the state folder fail with ENOSPC, as fs
// would on a full disk. Without the variable every call is a no-op. Documented in
// docs/development.md#failpoints.
import { writeSync } from 'node:fs';

export const FAILPOINTS = [
  /** Right after a train's members are journaled in_progress. */
  'after-claim',
  /** Once the first gate process of a train has started. */
  'mid-gate',
  /** After the train (merge) commit is built, before its gates run. */
  'after-train-commit',
  /** After the target's compare-and-swap succeeded, before the records say landed. */
  'after-cas',
  /** Between a temporary file's write and its rename (lib/store/atomic.ts). */
  'tmp-before-rename',
  /** In a journal append: part of the line is written, then the process dies (a torn last line). */
  'mid-journal-append',
  /** After a change's records are written, before the index of active jobs is (lib/queue/transition.ts). */
  'before-index',
  /** A queue kept in a remote: a landing's push is ready (commits written), not yet sent. */
  'before-landing-push',
  /** A queue kept in a remote: the remote took the landing's push; the cache does not know it yet. */
  'after-landing-push',
] as const;
export type KillFailpoint = (typeof FAILPOINTS)[number];
/** Not a kill: the n-th state-folder write throws ENOSPC. */
export const ENOSPC_FAILPOINT = 'enospc-write';
export type FailpointName = KillFailpoint | typeof ENOSPC_FAILPOINT;

export const FAILPOINT_ENV = 'LAND_FAILPOINT';

interface Armed {
  name: string;
  /** Fires the n-th time the point is reached (1-based). */
  at: number;
}

/** Parses `name[@n][,name[@n]...]`; an unknown name or a bad count is ignored (a typo must not crash a test's CLI elsewhere). */
export function parseFailpoints(value: string | undefined): Armed[] {
  if (!value) return [];
  const known: readonly string[] = [...FAILPOINTS, ENOSPC_FAILPOINT];
  const armed: Armed[] = [];
  for (const part of value.split(',')) {
    const match = /^\s*([a-z-]+)(?:@(\d+))?\s*$/.exec(part);
    if (!match?.[1] || !known.includes(match[1])) continue;
    const at = match[2] === undefined ? 1 : Number(match[2]);
    if (at >= 1) armed.push({ name: match[1], at });
  }
  return armed;
}

const reached = new Map<string, number>();

/** Forgets how often each point was reached (for in-process tests that arm a point again). */
export function resetFailpoints(): void {
  reached.clear();
}

/** Counts one arrival at `name`; true when this is the arrival the environment armed. */
function fires(name: FailpointName): boolean {
  const armed = parseFailpoints(process.env[FAILPOINT_ENV]).filter((a) => a.name === name);
  if (!armed.length) return false;
  const count = (reached.get(name) ?? 0) + 1;
  reached.set(name, count);
  return armed.some((a) => a.at === count);
}

/** Says (on stderr, synchronously) which failpoint fired, then dies with SIGKILL. */
export function die(name: string): never {
  try {
    writeSync(2, `land: failpoint ${name} reached: killing this process (SIGKILL)\n`);
  } catch {
    // stderr may be closed; the kill is what matters
  }
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL is not delivered synchronously on every platform; never run past the point.
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
}

/** A named point: kills the process when `LAND_FAILPOINT` arms it (its n-th arrival). */
export function failpoint(name: KillFailpoint): void {
  if (fires(name)) die(name);
}

/** For a write that can be cut short: true when this arrival is the armed one (the caller writes part, then calls die). */
export function failpointArmed(name: KillFailpoint): boolean {
  return fires(name);
}

/** An fs-like ENOSPC error for `path`, as `openSync`/`writeSync` throw on a full disk. */
export function enospcError(syscall: string, path: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`ENOSPC: no space left on device, ${syscall} '${path}'`);
  error.code = 'ENOSPC';
  error.errno = -28;
  error.syscall = syscall;
  error.path = path;
  return error;
}

/** Called before each state-folder write: throws ENOSPC when `enospc-write` arms this write. */
export function checkWriteFailpoint(path: string): void {
  if (fires(ENOSPC_FAILPOINT)) throw enospcError('write', path);
}
