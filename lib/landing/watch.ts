// `land run --watch`: what the drainer does while nothing is runnable for its target. It says once
// that it is idle, waits for the job records to change (the store's waitForChange: fs.watch with
// a polling fallback), and says once that it resumed when a change brought runnable work. A change
// that brings none (a job for another target, a cancel) keeps it idle without a new event.
import type { QueueStore } from '../store/index.js';
import type { Emit } from './events.js';

export interface WatchOptions {
  /** Exit 0 once the queue has been empty this long; null: wait until a signal. */
  idleExitSeconds: number | null;
  /** Poll the jobs folder instead of fs.watch (LAND_WATCH_POLL=1). */
  poll: boolean;
}

/** Why an idle wait ended: look at the queue again (the records changed), the idle time ran out, or a stop was asked. */
export type IdleWake = 'recheck' | 'idle_exit' | 'stop';

/** How often a stop (signal, lost drain lock) is looked for while idle. */
const STOP_CHECK_MS = 100;
/** The longest single wait (timers overflow past 2^31 ms); a longer idle-exit waits again. */
const LONGEST_WAIT_MS = 3_600_000;

export class IdleWatch {
  private idleSince: number | null = null;

  constructor(
    private readonly store: QueueStore,
    private readonly opts: WatchOptions,
    private readonly emit: Emit,
    private readonly target: string,
  ) {}

  /** True between finding nothing runnable and finding work again. */
  get idle(): boolean {
    return this.idleSince !== null;
  }

  private idleSeconds(): number {
    return this.idleSince === null ? 0 : Math.round((Date.now() - this.idleSince) / 100) / 10;
  }

  /**
   * Waits for the records to differ from `since` (the version read before the listing that found
   * nothing runnable, so a submission made in between is not missed).
   */
  async waitForWork(since: string, shouldStop: () => boolean): Promise<IdleWake> {
    if (this.idleSince === null) {
      this.idleSince = Date.now();
      this.emit({ type: 'idle', target: this.target, idleExitSeconds: this.opts.idleExitSeconds, polling: this.opts.poll });
    }
    if (shouldStop()) return 'stop';
    const timeoutMs = this.opts.idleExitSeconds === null ? null : this.idleSince + this.opts.idleExitSeconds * 1000 - Date.now();
    if (timeoutMs !== null && timeoutMs <= 0) {
      this.end('idle_exit');
      return 'idle_exit';
    }
    const stop = new AbortController();
    const ticker = setInterval(() => {
      if (shouldStop()) stop.abort();
    }, STOP_CHECK_MS);
    try {
      const slice = timeoutMs === null ? null : Math.min(timeoutMs, LONGEST_WAIT_MS);
      const outcome = await this.store.waitForChange({ since, signal: stop.signal, timeoutMs: slice, poll: this.opts.poll });
      switch (outcome.kind) {
        case 'changed':
          return 'recheck';
        case 'aborted':
          return 'stop';
        case 'timeout':
          if (slice !== timeoutMs) return 'recheck'; // one slice of a longer idle-exit
          this.end('idle_exit');
          return 'idle_exit';
        default: {
          const never: never = outcome;
          return never;
        }
      }
    } finally {
      clearInterval(ticker);
    }
  }

  /** Work was found: leave the idle state (and say so once). */
  resume(runnable: number): void {
    if (this.idleSince === null) return;
    this.emit({ type: 'resumed', jobs: runnable, idleSeconds: this.idleSeconds() });
    this.idleSince = null;
  }

  /** The watch ends while idle: the idle time ran out, or a signal asked it to stop. */
  end(why: 'idle_exit' | 'signal'): void {
    this.emit({ type: 'watch_ended', why, idleSeconds: this.idleSeconds() });
  }
}
