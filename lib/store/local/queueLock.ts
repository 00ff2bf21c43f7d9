// The queue lock of a state folder: a short critical section over the queue (lib/store/lock.ts's
// file lock), which also sweeps the temp files killed writers left.
import { ensureDir, removeStaleTempFiles } from '../atomic.js';
import { withFileLock } from '../lock.js';
import type { StatePaths } from '../paths.js';

/** How often a long-lived holder of the queue lock (a drain) sweeps jobs/ for stale temp files. */
const JOBS_SWEEP_MS = 60_000;

export class QueueLock {
  /** When this process last swept jobs/ for stale temp files (see hold). */
  private jobsSweptAt = Number.NEGATIVE_INFINITY;

  /** `retries`: how long a change waits for the lock, in waits of at most 100 ms. */
  constructor(
    private readonly paths: StatePaths,
    private readonly retries: number,
  ) {}

  /**
   * Runs `fn` holding the lock. Stale temp files left by a killed writer are removed from locks/
   * every time, and from jobs/ at this process's first hold and then at most once a minute:
   * listing a jobs folder of 10,000 records on every change of a drain would make each train cost
   * more the more jobs have finished (readers skip temp files anyway).
   */
  hold<T>(fn: () => Promise<T> | T): Promise<T> {
    ensureDir(this.paths.locksDir);
    return withFileLock(
      this.paths.queueLock,
      () => {
        if (Date.now() - this.jobsSweptAt >= JOBS_SWEEP_MS) {
          removeStaleTempFiles(this.paths.jobsDir);
          this.jobsSweptAt = Date.now();
        }
        removeStaleTempFiles(this.paths.locksDir);
        return fn();
      },
      this.retries,
    );
  }
}
