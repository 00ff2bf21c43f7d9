// Optimistic clearing (policy flaky.clearing, batch.parallel 2 or more): the head failed, and the
// train built on it passed. That train's commit holds the head's members and its own, and its tree
// passed the gates: it lands both member sets with one compare-and-swap from the head's base,
// instead of the head's FAIL being re-run or bisected. The head's run is void (reason `cleared`,
// its gates were spent), and its members' journals say which train cleared them (`land why`),
// written with the landing. Only when that PASS says what a PASS of the same tree on the target
// would say (clearingRefusal). docs/drain.md#optimistic-clearing.
import type { Policy } from '../../config/index.js';
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

/** What the refusal reads of the failed head and of the train behind it. */
export interface ClearingCase {
  head: { judgement: Judgement; commit: string };
  behind: { judgement: Judgement; base: string | undefined };
}

/**
 * Why the PASS of the train behind cannot clear the failed head, or null when it can. The gates of
 * the train behind ran on the head's commit as their base, so its PASS stands for the target's only
 * when: the head restored no trusted path (else the train behind ran the head's own gate scripts);
 * every gate ran on it (a selection from its own changes may have skipped the gate the head
 * failed); no gate is a batch stage (it judged the train behind's members only); and it was built
 * on the head's commit as judged (a refresh entry that moved the head is not in it).
 */
export function clearingRefusal(policy: Pick<Policy, 'flaky' | 'gates'>, c: ClearingCase): string | null {
  if (!clearable(policy, c.head.judgement)) return 'not a gate failure under flaky.clearing';
  const head = c.head.judgement.telemetry;
  const behind = c.behind.judgement.telemetry;
  if (c.behind.judgement.verdict !== 'PASS') return 'the train behind did not pass';
  if (head.mode !== 'full' && head.mode !== 'selective') return 'no gate ran on the head';
  if (head.trusted?.restored.length) return 'the head changes trusted paths';
  if (policy.gates.some((gate) => gate.batch !== undefined)) return 'a gate is a batch stage';
  if (c.head.judgement.refreshed !== null || c.behind.base !== c.head.commit) return 'the train behind is not built on the head as judged';
  if (behind.mode !== 'full' || (behind.cached?.length ?? 0) > 0) return 'not every gate ran on the train behind';
  return null;
}

/**
 * The two trains as one: the head's members then those behind, on the head's base (the target
 * tip), with the commit and tree of the train behind (built on the head's commit, so it holds both).
 */
export function clearedTrain(
  head: Pick<Flight, 'plan' | 'started'>,
  behind: Pick<Flight, 'plan' | 'started'>,
  failed: Judgement,
): { plan: TrainPlan; started: Started } {
  const base = head.started.built.base;
  const built = { ...behind.started.built, base, members: [...head.started.built.members, ...behind.started.built.members] };
  const failure = failed.verdict === 'FAIL' ? failed.failure : null;
  const cleared = {
    members: head.started.members.map((job) => job.id),
    kind: head.started.built.kind,
    train: head.started.trainId,
    gate: failure?.gate ?? null,
    status: failure?.status ?? null,
    log: failed.log,
  };
  return {
    plan: { ...behind.plan, view: { ...behind.plan.view, baseTree: head.plan.view.baseTree }, base },
    started: {
      trainId: behind.started.trainId,
      built,
      members: [...head.started.members, ...behind.started.members],
      before: [...head.started.before, ...behind.started.before],
      cleared,
    },
  };
}

/**
 * The PASS of the train behind settled for both member sets: landed (with the head's members'
 * `cleared` journal lines), or, when the landing is not made (the target moved, a member withdrew),
 * all of them go back as that settlement says. Then the head's void row, unless the drain lock was
 * lost (the queue is no longer this drainer's).
 */
export async function settleCleared(ctx: DrainContext, head: Flight, headJudged: RerunOutcome, behind: Flight, behindJudged: RerunOutcome): Promise<Next> {
  const both = clearedTrain(head, behind, headJudged.judgement);
  const next = await settleStarted(ctx, { id: behind.batchId, waiting: [] }, both.plan, both.started, behindJudged);
  if (next.next === 'stop' && next.why === 'lock_lost') return next;
  const row = voidedRow(ctx, head, headJudged, 'cleared');
  await ctx.store.withQueueLock(() => ctx.store.appendMetric(row));
  return next;
}
