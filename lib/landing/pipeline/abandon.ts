// What a speculative train (batch.parallel above 1) does to its members when it is abandoned, and
// what its build found that means something else on a speculative base: pure functions. An
// abandoned train was built on a train that did not land: nothing it found counts, so its members
// go back to the queue exactly as they were queued before it (same batch, same attempt, nothing
// counted against a retry), and the journal says why (`speculation_abandoned`).
import type { JobChange } from '../../queue/index.js';
import type { JobRecord } from '../../store/index.js';
import type { DrainEvent } from '../events.js';
import type { Steps } from '../plan/trainSteps.js';
import type { BuiltTrain } from '../trains/buildTrain.js';

/** The journal's reason for a member put back by an abandoned speculative train. */
export const ABANDONED = 'speculation_abandoned';

/** Why a speculative train is abandoned, named in its event and journal lines. */
export interface Abandonment {
  /** The abandoned train. */
  train: string;
  /** The train ahead of it whose outcome voided it. */
  after: string;
  why: string;
}

/**
 * Members back in the queue as `before` had them (the record read just before the train started):
 * a bisection half stays a half of its batch at the same attempt, a fresh job stays fresh. Only a
 * member still riding moves; a cancel asked meanwhile survives and is honoured at the next boundary.
 */
export function putBackChanges(before: readonly JobRecord[], detail: Record<string, unknown>): JobChange[] {
  return before.map((prev) => ({
    id: prev.id,
    to: 'queued' as const,
    from: ['in_progress'] as const,
    lenient: true,
    event: 'requeued',
    detail: { reason: ABANDONED, ...detail },
    patch: (current: JobRecord) => ({
      requeued: prev.requeued,
      reason: prev.reason === 'bisected' ? 'bisected' : ABANDONED,
      batch: prev.batch,
      attempts: prev.attempts,
      regate: prev.regate,
      fastPath: prev.fastPath,
      train: null,
      stopRequest: current.stopRequest?.kind === 'cancel' ? current.stopRequest : null,
    }),
  }));
}

/** An abandoned train's members put back, and the event that says so. */
export function abandonSteps(before: readonly JobRecord[], a: Abandonment): Steps {
  const members = before.map((job) => job.id);
  return {
    changes: putBackChanges(before, { train: a.train, after: a.after, why: a.why }),
    events: [{ type: 'train_abandoned', train: a.train, after: a.after, members, why: a.why }],
  };
}

/**
 * A build on the train ahead, as it means for the target: a tip contained in the train ahead but
 * not in the target (`inTarget` false) is not landed yet (it goes back, held out of speculation),
 * and a conflict with the train ahead is a conflict with a train, not with the target (nobody is
 * failed for it). Returns the train to ride, the members put back, and every job held back.
 */
export function speculativeBuild(
  built: BuiltTrain,
  before: readonly JobRecord[],
  inTarget: ReadonlySet<string>,
  on: string,
): { built: BuiltTrain; back: Steps; held: string[] } {
  const notYet = built.contained.filter((job) => !inTarget.has(job.id));
  const skipped = built.skipped.map((skip) => (skip.against === 'target' ? { ...skip, against: 'train' as const } : skip));
  const out = new Set(notYet.map((job) => job.id));
  const back = before.filter((job) => out.has(job.id));
  const events: DrainEvent[] = back.length
    ? [{ type: 'requeued', train: null, jobs: back.map((job) => job.id), reason: `already in train ${on} ahead, not yet in the target` }]
    : [];
  return {
    built: { ...built, contained: built.contained.filter((job) => inTarget.has(job.id)), skipped },
    back: { changes: putBackChanges(back, { train: on, why: 'contained in the train ahead' }), events },
    held: [...out, ...skipped.map((skip) => skip.job.id)],
  };
}
