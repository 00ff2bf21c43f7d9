// Optimistic clearing (policy flaky.clearing, batch.parallel 2 or more): the head failed, and the
// train built on it passed. That train's commit holds the head's members and its own, and its tree
// passed the gates: it lands both member sets with one compare-and-swap from the head's base,
// instead of the head's FAIL being re-run or bisected. The head's run is void (reason `cleared`,
// its gates were spent), and its members' journals say which train cleared them (`land why`).
// Only a gate's own failure (an exit or a timeout) is cleared: a refusal, an infrastructure failure
// or a stop is never. docs/drain.md#optimistic-clearing.
import type { Policy } from '../../config/index.js';
import { applyChangesLocked, clearedChanges } from '../../queue/index.js';
import type { Judgement } from '../gates/judgement.js';
import type { Next } from '../plan/settlement.js';
import type { RerunOutcome } from '../trains/rerunTrain.js';
import { settleStarted, type DrainContext, type Started, type TrainPlan } from '../trains/runTrains.js';
import { voidedRow, type Flight } from './flight.js';

/** Whether a head's verdict may be cleared by the train behind it: a gate's failure, under flaky.clearing. */
export function clearable(policy: Pick<Policy, 'flaky'>, judgement: Judgement): boolean {
  if (!policy.flaky.clearing || judgement.verdict !== 'FAIL') return false;
  const { failure } = judgement;
  return failure.kind === 'fail' && (failure.reason === 'gate' || failure.reason === 'timeout');
}

/**
 * The two trains as one: the head's members then those behind, on the head's base (the target
 * tip), with the commit and tree of the train behind (built on the head's commit, so it holds both).
 */
export function clearedTrain(head: Pick<Flight, 'plan' | 'started'>, behind: Pick<Flight, 'plan' | 'started'>): { plan: TrainPlan; started: Started } {
  const base = head.started.built.base;
  const built = { ...behind.started.built, base, members: [...head.started.built.members, ...behind.started.built.members] };
  return {
    plan: { ...behind.plan, view: { ...behind.plan.view, baseTree: head.plan.view.baseTree }, base },
    started: {
      trainId: behind.started.trainId,
      built,
      members: [...head.started.members, ...behind.started.members],
      before: [...head.started.before, ...behind.started.before],
      cleared: { members: head.started.members.map((job) => job.id), kind: head.started.built.kind },
    },
  };
}

/**
 * The head's failed run recorded as cleared (its void row, its members' journal lines, the event),
 * then the PASS of the train behind settled for both member sets: landed, or, when the landing is
 * not made (the target moved, a member withdrew), all of them go back as that settlement says.
 */
export async function settleCleared(ctx: DrainContext, head: Flight, headJudged: RerunOutcome, behind: Flight, behindJudged: RerunOutcome): Promise<Next> {
  const { judgement } = headJudged;
  const failure = judgement.verdict === 'FAIL' ? judgement.failure : null;
  const cleared = { train: head.started.trainId, by: behind.started.trainId, gate: failure?.gate ?? null, status: failure?.status ?? null, log: judgement.log };
  const row = voidedRow(ctx, head, headJudged, 'cleared');
  await ctx.store.withQueueLock(() => {
    ctx.store.appendMetric(row);
    applyChangesLocked(ctx.store, clearedChanges(head.started.members, cleared));
  });
  const members = head.started.members.map((job) => job.id);
  ctx.emit({ type: 'cleared', train: cleared.train, by: cleared.by, members, gate: cleared.gate ?? '?', status: cleared.status ?? 'FAIL' });
  const both = clearedTrain(head, behind);
  return settleStarted(ctx, { id: behind.batchId, waiting: [] }, both.plan, both.started, behindJudged);
}
