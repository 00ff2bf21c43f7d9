// Locks over the state folder (proper-lockfile: a lock directory with an mtime heartbeat).
// The queue lock guards short read-modify-write sections; the drain lock keeps one drainer per
// repository. Neither is trusted for correctness: the landing itself is a compare-and-swap of the
// target ref, so two drainers that both believed they held the lock still cannot land twice.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { LandError } from '../errors.js';
import { isNoSpace, noSpaceError } from './noSpace.js';
import { ensureDir, writeJsonAtomic } from './atomic.js';
import { processStart, recordProcessAlive } from './landingToken.js';
import { drainHolderSchema, type DrainHolder } from './formats/index.js';
import type { StatePaths } from './paths.js';

/**
 * proper-lockfile, loaded when a lock is first taken: it brings graceful-fs, retry and signal-exit
 * (about 40 kB, and graceful-fs patches fs as it loads), which a command that only reads the state
 * folder (`land status`) never needs (docs/development.md, start-up).
 */
let lockfileModule: Promise<typeof import('proper-lockfile')> | null = null;
function properLockfile(): Promise<typeof import('proper-lockfile')> {
  lockfileModule ??= import('proper-lockfile').then((loaded) => loaded.default);
  return lockfileModule;
}

const QUEUE_LOCK = {
  realpath: false,
  stale: 10_000,
  update: 2_000,
  retries: { retries: 600, factor: 1.2, minTimeout: 5, maxTimeout: 100, randomize: true },
};

/**
 * The holds of each lock by this process, in line: the tail of the line per lock path. Not a cache:
 * the process's own waiting line, which must be one per lock file whichever store object asks.
 */
const inProcessLine = new Map<string, Promise<unknown>>();

/**
 * `retries`: how many waits (of at most 100 ms each) for another holder before giving up (busy).
 * Holds from this process take their turns in the order they asked (a queue in memory); only
 * holders in other processes are waited for by polling the lock folder. Polling alone is unfair:
 * a newcomer polls every few ms while an old waiter has backed off to 100 ms, so a drainer's
 * lease heartbeat, asking again and again while its push is slow, kept the drain itself out for
 * minutes on a loaded machine. Not re-entrant: a hold must not ask for the same lock again.
 */
export function withFileLock<T>(lockPath: string, fn: () => Promise<T> | T, retries = QUEUE_LOCK.retries.retries): Promise<T> {
  const before = inProcessLine.get(lockPath) ?? Promise.resolve();
  const hold = before.then(() => holdFileLock(lockPath, fn, retries));
  const tail = hold.then(
    () => undefined,
    () => undefined,
  );
  inProcessLine.set(lockPath, tail);
  void tail.then(() => {
    if (inProcessLine.get(lockPath) === tail) inProcessLine.delete(lockPath);
  });
  return hold;
}

async function holdFileLock<T>(lockPath: string, fn: () => Promise<T> | T, retries: number): Promise<T> {
  let compromised: Error | null = null;
  let release: () => Promise<void>;
  try {
    release = await (await properLockfile()).lock(lockPath, {
      ...QUEUE_LOCK,
      retries: { ...QUEUE_LOCK.retries, retries },
      onCompromised: (error) => {
        compromised = error; // reported after fn; never thrown inside a timer
      },
    });
  } catch (error) {
    // A full disk refuses the lock folder's mkdir: that is no_space, not another holder.
    if (isNoSpace(error)) throw noSpaceError(error, `${lockPath}.lock`);
    throw new LandError('busy', `could not take the queue lock at ${lockPath}.lock: ${(error as Error).message}`);
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
    if (compromised) process.stderr.write(`land: warning: queue lock was compromised: ${(compromised as Error).message}\n`);
  }
}

export interface DrainLease {
  holder: DrainHolder;
  /** Set when the lock's heartbeat found it taken over; the drainer stops at the next boundary. */
  compromised(): Error | null;
  /**
   * Whether this drainer still holds the queue: its heartbeat saw no takeover and the holder file
   * still names it (by its id, which is no secret: nothing is authorized by knowing it).
   */
  holds(): boolean;
  release(): Promise<void>;
  /** What this drainer took over to get the queue, said once when it starts (a remote queue's lease of a dead drainer). */
  takeover?: string;
}

/** The drain lock's heartbeat: a lock whose directory was not touched for this long is abandoned. */
const DRAIN_STALE_MS = 30_000;
/** A takeover in progress that was not finished within this long was left by a killed process. */
const TAKEOVER_STALE_MS = 10_000;

const DRAIN_LOCK = {
  realpath: false,
  // Staleness is decided here (a dead holder at once, a silent heartbeat after DRAIN_STALE_MS),
  // under the takeover mutex, never by proper-lockfile's own removal, which two newcomers could
  // both perform (the second removing the lock the first had just taken).
  stale: 24 * 3600_000,
  update: 2_000,
  retries: 0,
};

/** A drain lock with no holder file whose heartbeat (every 2 s) has been silent this long was abandoned. */
const NO_HOLDER_STALE_MS = 8_000;

export function readDrainHolder(paths: StatePaths): DrainHolder | null {
  try {
    const parsed = drainHolderSchema.safeParse(JSON.parse(readFileSync(paths.drainHolder, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function describeHolder(holder: DrainHolder | null): string {
  return holder
    ? `pid ${holder.pid} on ${holder.host} since ${holder.since}`
    : `a process that wrote no holder file (taken over once its heartbeat has been silent ${NO_HOLDER_STALE_MS / 1000} s)`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds since a path was last modified; null when it does not exist. */
function ageMs(path: string): number | null {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * Whether the drain lock on disk was abandoned: its holder on this host is dead (or its pid now
 * belongs to a process started later), or, for a holder on another host or none written, the
 * lock's heartbeat stopped.
 */
function abandoned(paths: StatePaths, holder: DrainHolder | null): boolean {
  if (holder && holder.host === hostname()) return !recordProcessAlive(holder);
  const age = ageMs(`${paths.drainLock}.lock`);
  // No holder written: a drainer killed between taking the lock and writing its holder file (a
  // live one writes it at once). Its heartbeat is the only sign of life, checked sooner.
  return age !== null && age > (holder ? DRAIN_STALE_MS : NO_HOLDER_STALE_MS);
}

/** Enters the takeover mutex (a directory); false when another process is in it. */
function enterTakeover(mutex: string): boolean {
  try {
    mkdirSync(mutex);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const age = ageMs(mutex);
    if (age !== null && age > TAKEOVER_STALE_MS) rmSync(mutex, { recursive: true, force: true });
    return false;
  }
}

/**
 * Removes an abandoned drain lock, one newcomer at a time: under the takeover mutex the holder is
 * read again and must still be the one `seen` was, and still abandoned, so a second newcomer that
 * saw the same dead holder cannot remove the lock the first has taken meanwhile. The caller then
 * competes for the lock like anyone else (mkdir decides). False: nothing was removed.
 */
function takeOver(paths: StatePaths, seen: DrainHolder | null): boolean {
  const mutex = `${paths.drainLock}.takeover`;
  if (!enterTakeover(mutex)) return false;
  try {
    const now = readDrainHolder(paths);
    if (now?.id !== seen?.id || !abandoned(paths, now)) return false;
    rmSync(paths.drainHolder, { force: true });
    rmSync(`${paths.drainLock}.lock`, { recursive: true, force: true });
    return true;
  } finally {
    rmSync(mutex, { recursive: true, force: true });
  }
}

function newHolder(): DrainHolder {
  return {
    pid: process.pid,
    host: hostname(),
    id: randomBytes(12).toString('hex'),
    start: processStart(process.pid),
    since: new Date().toISOString(),
  };
}

async function tryDrainLock(paths: StatePaths): Promise<DrainLease | null> {
  let compromised: Error | null = null;
  let release: () => Promise<void>;
  try {
    release = await (await properLockfile()).lock(paths.drainLock, {
      ...DRAIN_LOCK,
      onCompromised: (error) => {
        compromised = error;
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') return null;
    throw error;
  }
  const holder = newHolder();
  writeJsonAtomic(paths.drainHolder, holder);
  const holds = () => compromised === null && readDrainHolder(paths)?.id === holder.id;
  return {
    holder,
    compromised: () => compromised,
    holds,
    release: async () => {
      // The holder file goes first: a lock directory without one is never taken for abandoned
      // before its heartbeat stops.
      if (readDrainHolder(paths)?.id === holder.id) rmSync(paths.drainHolder, { force: true });
      await release().catch(() => undefined);
    },
  };
}

/**
 * Takes the drain lock. With `wait: false` a held lock is a `busy` error naming the holder.
 * A lock whose holder is a dead process on this host is taken over at once (the caller then runs
 * recovery before draining); a holder on another host is trusted until its heartbeat goes stale.
 * Two newcomers taking over one abandoned lock: exactly one gets it (see takeOver).
 */
export async function acquireDrainLock(
  paths: StatePaths,
  opts: { wait: boolean; onWaiting?: (holder: DrainHolder | null) => void; shouldStop?: () => boolean },
): Promise<DrainLease> {
  ensureDir(paths.locksDir);
  let announced = false;
  for (;;) {
    const lease = await tryDrainLock(paths);
    if (lease) return lease;
    const holder = readDrainHolder(paths);
    if (abandoned(paths, holder)) {
      // Its holder died without releasing (kill -9): recovery of its in_progress jobs is the
      // caller's next step, checked against git. Another newcomer may be taking over the same
      // lock: try again shortly, and the lock itself decides.
      if (!takeOver(paths, holder)) await sleep(20 + Math.random() * 30);
      continue;
    }
    if (!opts.wait) {
      throw new LandError('busy', `another drainer holds the queue: ${describeHolder(holder)}`, {
        hint: 'wait for it to finish, or run without --no-wait to wait for the lock',
      });
    }
    if (opts.shouldStop?.()) throw new LandError('interrupted', 'stopped by a signal while waiting for the drain lock');
    if (!announced) {
      opts.onWaiting?.(holder);
      announced = true;
    }
    await sleep(250);
  }
}
