// Locks over the state folder (proper-lockfile: a lock directory with an mtime heartbeat).
// The queue lock guards short read-modify-write sections; the drain lock keeps one drainer per
// repository. Neither is trusted for correctness: the landing itself is a compare-and-swap of the
// target ref, so two drainers that both believed they held the lock still cannot land twice.
import lockfile from 'proper-lockfile';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { LandError } from '../errors.js';
import { ensureDir, writeJsonAtomic } from './atomic.js';
import { drainHolderSchema, type DrainHolder } from './schemas.js';
import type { StatePaths } from './paths.js';

const QUEUE_LOCK = {
  realpath: false,
  stale: 10_000,
  update: 2_000,
  retries: { retries: 600, factor: 1.2, minTimeout: 5, maxTimeout: 100, randomize: true },
};

export async function withFileLock<T>(lockPath: string, fn: () => Promise<T> | T): Promise<T> {
  let compromised: Error | null = null;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(lockPath, {
      ...QUEUE_LOCK,
      onCompromised: (error) => {
        compromised = error; // reported after fn; never thrown inside a timer
      },
    });
  } catch (error) {
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
  release(): Promise<void>;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readDrainHolder(paths: StatePaths): DrainHolder | null {
  try {
    const parsed = drainHolderSchema.safeParse(JSON.parse(readFileSync(paths.drainHolder, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function describeHolder(holder: DrainHolder | null): string {
  return holder ? `pid ${holder.pid} on ${holder.host} since ${holder.since}` : 'an unknown process';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Takes the drain lock. With `wait: false` a held lock is a `busy` error naming the holder.
 * A lock whose holder is a dead process on this host is removed at once (the caller then runs
 * recovery before draining); a holder on another host is trusted until its heartbeat goes stale.
 */
export async function acquireDrainLock(
  paths: StatePaths,
  opts: { wait: boolean; onWaiting?: (holder: DrainHolder | null) => void; shouldStop?: () => boolean },
): Promise<DrainLease> {
  ensureDir(paths.locksDir);
  let compromised: Error | null = null;
  let announced = false;
  for (;;) {
    try {
      const release = await lockfile.lock(paths.drainLock, {
        realpath: false,
        stale: 30_000,
        update: 5_000,
        retries: 0,
        onCompromised: (error) => {
          compromised = error;
        },
      });
      const holder: DrainHolder = {
        pid: process.pid,
        host: hostname(),
        token: randomBytes(16).toString('hex'),
        since: new Date().toISOString(),
      };
      writeJsonAtomic(paths.drainHolder, holder);
      return {
        holder,
        compromised: () => compromised,
        release: async () => {
          const current = readDrainHolder(paths);
          if (current?.token === holder.token) rmSync(paths.drainHolder, { force: true });
          await release().catch(() => undefined);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
      const holder = readDrainHolder(paths);
      if (holder && holder.host === hostname() && holder.pid !== process.pid && !pidAlive(holder.pid)) {
        // The holder died without releasing (kill -9). Its lock directory is removed; recovery
        // of its in_progress jobs is the caller's next step, checked against git.
        // proper-lockfile's unlock() only releases a lock this process owns, so the dead
        // holder's lock directory is removed by hand, and only while the holder is still the dead
        // one (another newcomer may have taken over meanwhile). What is left of that race is
        // caught before the landing: a drainer checks its token right before the CAS.
        if (readDrainHolder(paths)?.token !== holder.token) continue;
        rmSync(`${paths.drainLock}.lock`, { recursive: true, force: true });
        rmSync(paths.drainHolder, { force: true });
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
}
