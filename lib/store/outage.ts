// A drainer holding the lease of a queue kept in a remote rides out an outage of the remote
// shorter than queue.leaseSeconds (docs/remote.md#an-outage-of-the-remote): between trains, while
// idle (`land run --watch`) and while renewing its lease, an unreachable remote is tried again
// with a back-off until leaseSeconds have passed since the last time the remote answered, the
// time after which another drainer may take the lease over. Then it gives up with exit 13.
// nextRetry is the schedule (pure); OutageNotice keeps the last contact and says once that the
// remote is unreachable, and once that it is back.
import { performance } from 'node:perf_hooks';
import { LandError } from '../errors.js';
import { RemoteUnreachable } from '../git/index.js';

/** The first wait after a failure; each next one doubles, up to pollSeconds. */
export const FIRST_RETRY_MS = 500;

export type RetryStep = { kind: 'retry'; waitMs: number } | { kind: 'give_up' };

/**
 * After the `failures`-th failure in a row (1 for the first), `sinceContactMs` after the remote
 * last answered: wait and try again (0.5 s, 1 s, 2 s ... at most pollSeconds, and never past the
 * lease's end, so the last try comes right at it), or give up once the lease's time has passed.
 */
export function nextRetry(failures: number, sinceContactMs: number, limits: { leaseSeconds: number; pollSeconds: number }): RetryStep {
  const left = limits.leaseSeconds * 1000 - sinceContactMs;
  if (left <= 0) return { kind: 'give_up' };
  const backoff = Math.min(FIRST_RETRY_MS * 2 ** Math.min(Math.max(failures - 1, 0), 30), limits.pollSeconds * 1000);
  return { kind: 'retry', waitMs: Math.max(1, Math.min(backoff, left)) };
}

/** git's reason when `error` says the remote could not be reached (remote/errors.ts remoteError); null for any other error. */
export function unreachableReason(error: unknown): string | null {
  return error instanceof LandError && error.code === 'remote' && error.cause instanceof RemoteUnreachable ? error.cause.reason : null;
}

/** When the remote last answered, and the two lines a drainer prints about an outage. */
export class OutageNotice {
  private lastContact: number;
  private since: number | null = null;

  constructor(
    private readonly remote: string,
    private readonly leaseSeconds: number,
    private readonly say: (line: string) => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.lastContact = now();
  }

  sinceContactMs(): number {
    return this.now() - this.lastContact;
  }

  /** The remote answered (a fetch, or a push it took or refused): an outage, if any, is over. */
  reached(): void {
    this.lastContact = this.now();
    if (this.since === null) return;
    const seconds = Math.round((this.lastContact - this.since) / 100) / 10;
    this.since = null;
    this.say(`land: the queue's remote ${this.remote} is reachable again (after ${seconds} s)\n`);
  }

  /** This notice's clock: when an attempt to reach the remote starts (unreachable's `startedAt`). */
  clock(): number {
    return this.now();
  }

  /**
   * A drainer could not reach the remote and will try again: said once per outage. An attempt
   * that started before the remote last answered (a renewal push and a fetch run side by side)
   * failed in an outage already over: it is not a new one.
   */
  unreachable(reason: string, startedAt: number = this.now()): void {
    if (this.since !== null || startedAt < this.lastContact) return;
    this.since = this.now();
    this.say(`land: the queue's remote ${this.remote} is unreachable; retrying for up to ${this.leaseSeconds} s: ${reason}\n`);
  }

  /** The error a drainer gives up with: the lease's time passed without an answer (exit 13). */
  gaveUp(reason: string): LandError {
    return new LandError('remote', `the queue's remote ${this.remote} could not be reached for ${this.leaseSeconds} s (queue.leaseSeconds): ${reason}`, {
      hint: 'another drainer may take the lease over by now; this one stops without changing anything more. Run land again once the remote answers',
    });
  }
}
