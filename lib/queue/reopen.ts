// Reopening a finished job: `land retry`, and `land submit` of the same branch at the same tip.
// A failed or canceled job goes back to `queued` as the same job (same id, same place in the
// submission order), cleared of its last train, and marked `regate` so the next train holding it
// runs the gates again instead of reusing a cached FAIL (the change itself: reopenChange in changes.ts).
import type { JobRecord } from '../store/index.js';

/** What a reopened job was before: for the journal, the output and `land why`. */
export interface ReopenedFrom {
  state: 'failed' | 'canceled';
  reason: string | null;
}

export function isReopenable(job: JobRecord): job is JobRecord & { state: 'failed' | 'canceled' } {
  return job.state === 'failed' || job.state === 'canceled';
}

export function reopenedFrom(job: JobRecord & { state: 'failed' | 'canceled' }): ReopenedFrom {
  return { state: job.state, reason: job.reason };
}

/** "failed: gate test" or "canceled", for a sentence about what a job was. */
export function describeReopenedFrom(from: ReopenedFrom): string {
  return from.reason && from.reason !== from.state ? `${from.state}: ${from.reason}` : from.state;
}
