// Reopening a finished job: `land retry`, and `land submit` of the same branch at the same tip.
// A failed or canceled job goes back to `queued` as the same job (same id, same place in the
// submission order), cleared of its last train, and marked `regate` so the next train holding it
// runs the gates again instead of reusing a cached FAIL.
import type { JobRecord } from '../store/index.js';
import { nowIso } from './clock.js';
import type { JobChange } from './transition.js';

export type ReopenEvent = 'retried' | 'resubmitted';

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

/** The one change that reopens a failed or canceled job; `extra` adds fields (a new title, urgency). */
export function reopenChange(job: JobRecord, event: ReopenEvent, by: string, extra: Partial<JobRecord> = {}): JobChange {
  return {
    id: job.id,
    to: 'queued',
    from: ['failed', 'canceled'],
    event,
    detail: { by, previousState: job.state, previousReason: job.reason, tip: job.tip },
    patch: (current) => {
      // The last ending's time stays in the journal; the record describes the job as it is now.
      const timestamps: JobRecord['timestamps'] = { ...current.timestamps, reopened: nowIso() };
      delete timestamps.failed;
      delete timestamps.canceled;
      return {
        reason: null,
        error: null,
        batch: null,
        verdict: null,
        requeued: false,
        requeues: {},
        attempts: 0,
        conflictPreview: null,
        stopRequest: null,
        timestamps,
        // A fresh judgement: a cached FAIL of a train holding this job is not reused.
        regate: true,
        ...extra,
      };
    },
  };
}

/** "failed: gate test" or "canceled", for a sentence about what a job was. */
export function describeReopenedFrom(from: ReopenedFrom): string {
  return from.reason && from.reason !== from.state ? `${from.state}: ${from.reason}` : from.state;
}
