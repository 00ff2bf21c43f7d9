// A train's judgement with its flaky re-runs (policy flaky): the train is judged once (cache or
// gates); while plan/flakyPlan.ts says "run again" (a gate failed and the evidence, or the fixed
// allowance, says its tree is worth another run; fewer than five runs of this train), the failed
// run is journaled and the gates run again on the same tree. The last run's verdict is what the
// train settles; every run is kept for the metrics row and the job record, and added to the drain's
// flake history (../flakeHistory.ts). The decision is pure; this module performs it.
import { applyChanges, listActiveJobsSync, nowIso, rerunChanges } from '../../queue/index.js';
import type { GateRun, JobRecord, QueueStore, TrainRuns } from '../../store/index.js';
import { judgeTrain, type FastPathCheck, type JudgeContext, type Judgement, type JudgeOptions } from '../gates/judge.js';
import type { LoadedPolicy } from '../../config/index.js';
import type { FlakeHistory } from '../flakeHistory.js';
import {
  decideRerun,
  gateRunOf,
  priorRuns,
  rerunRuleOf,
  runsAfter,
  siblingOf,
  trainKey,
  type RerunDecision,
  type RerunEnd,
  type RerunReason,
  type RunHistory,
} from '../plan/flakyPlan.js';
import { expectedRate } from '../plan/windowPlan.js';
import { recordedTally } from '../window.js';
import { judgedSteps, withdrawals } from '../plan/trainSteps.js';

/**
 * The train to judge with the drain's fast-path decision (null: none made). Refresh entries that
 * commit on top of the train change `built` here: that commit is what was judged and lands.
 */
export type TrainToJudge = Omit<JudgeOptions, 'fastPath' | 'rerun'> & {
  fastPath: FastPathCheck | null;
  /** The train's attempt in its batch: a first half's parent FAIL is evidence too (plan/flakyPlan.ts siblingOf). */
  attempt?: number;
};

/** The last run's judgement, every run of this drainer (oldest first), the runs recorded before, and why the runs stopped. */
export interface RerunOutcome {
  judgement: Judgement;
  runs: GateRun[];
  prior: TrainRuns;
  ended?: RerunEnd;
}

/** One run: judged, the refreshed commit taken, the notes and the verdict applied and reported. */
async function judgeOnce(ctx: JudgeContext, t: TrainToJudge, fastPath: FastPathCheck | null, rerun: number | null): Promise<Judgement> {
  const { built, ids, members } = t;
  const judgement = await judgeTrain(ctx, { ...t, fastPath, rerun });
  if (judgement.refreshed) {
    built.train = judgement.refreshed.commit;
    built.tree = judgement.refreshed.tree;
  }
  const steps = judgedSteps(judgement, members, { trainId: ids.trainId, base: built.base, tree: built.tree, now: nowIso() });
  if (steps.changes.length) await applyChanges(ctx.store, steps.changes);
  for (const event of steps.events) ctx.emit(event);
  return judgement;
}

/** A stop request that arrived, or a signal: no re-run (the settlement voids or requeues as before). */
function stopAsked(ctx: JudgeContext, members: readonly JobRecord[]): boolean {
  if (ctx.abort.aborted) return true;
  const fresh = members.map((job) => ctx.store.readJob(job.id)).filter((job): job is JobRecord => job !== null);
  return fresh.length < members.length || withdrawals(fresh).dropped > 0;
}

/** What judging with re-runs needs beyond a judgement: the drain's flake history, and for a speculative train when the train ahead landed. */
export type RerunContext = JudgeContext & {
  flakes: FlakeHistory;
  aheadLanded?: () => Promise<void>;
  behindPassed?: (judgement: Judgement) => Promise<boolean>;
};

/**
 * Whether the last run is settled or the tree gated again, under the policy's rule. Only a FAIL
 * reads the culprit rate and the gate's history: a passing train costs no read.
 */
export function rerunDecision(ctx: { store: QueueStore; flakes: FlakeHistory }, policy: LoadedPolicy['policy'], history: RunHistory): RerunDecision {
  const jobRate = () => expectedRate(recordedTally(ctx.store));
  return decideRerun(
    history,
    rerunRuleOf(policy, jobRate, (gate) => ctx.flakes.evidence(gate)),
  );
}

export async function judgeWithReruns(ctx: RerunContext, t: TrainToJudge): Promise<RerunOutcome> {
  const { ids, members } = t;
  const policy = t.loaded.policy;
  const prior = priorRuns(trainKey(t.built.base, members), members);
  // Read once, at the first FAIL, from the active jobs' index: the other half of the failed train this one was split from.
  let sibling: number | undefined;
  const siblingNow = () => (sibling ??= t.attempt === undefined ? 0 : siblingOf(listActiveJobsSync(ctx.store).jobs, ids.batchId, t.attempt, members));
  let judgement = await judgeOnce(ctx, t, t.fastPath, null);
  const runs = [gateRunOf(judgement, 1, ids.trainId)];
  for (;;) {
    // A speculative train's FAIL waits for the train ahead: abandoned with it, or judged once it landed.
    const failed = runs.at(-1)?.verdict === 'FAIL';
    if (failed && ctx.aheadLanded) await ctx.aheadLanded();
    // Optimistic clearing (policy flaky.clearing): the train built on this one passed; no re-run, the pipeline lands both.
    const cleared = failed && ctx.behindPassed !== undefined && (await ctx.behindPassed(judgement));
    const decision = rerunDecision(ctx, policy, { members: members.length, prior, runs, sibling: failed ? siblingNow() : 0 });
    if (cleared || decision.kind === 'settle' || stopAsked(ctx, members)) {
      ctx.flakes.record(runs, t.built.tree, cleared);
      return { judgement, runs, prior, ...(decision.kind === 'settle' ? { ended: endOf(policy, decision) } : {}) };
    }
    const last = runs.at(-1) as GateRun;
    const why = rerunWhy(policy, decision);
    await applyChanges(ctx.store, rerunChanges(members, { train: ids.trainId, run: decision.run, failed: last, trainRuns: runsAfter(prior, runs), why }));
    ctx.emit({
      type: 'gate_rerun',
      train: ids.trainId,
      job: (members[0] as JobRecord).id,
      jobs: members.length,
      run: decision.run,
      gate: last.gate ?? '?',
      status: last.status ?? 'FAIL',
      ...why,
    });
    judgement = await judgeOnce(ctx, t, null, decision.run);
    runs.push(gateRunOf(judgement, decision.run, ids.trainId));
  }
}

/** Why the runs stopped, with the threshold the evidence rule held them to. */
function endOf(policy: LoadedPolicy['policy'], decision: RerunDecision & { kind: 'settle' }): RerunEnd {
  const threshold = policy.flaky.rule === 'evidence' ? { threshold: policy.flaky.threshold } : {};
  return { why: decision.why, ...(decision.posterior === undefined ? {} : { posterior: decision.posterior }), ...threshold };
}

/** Why a tree is gated again, as the journal and the progress line tell it. */
export function rerunWhy(policy: LoadedPolicy['policy'], decision: RerunDecision & { kind: 'rerun' }): RerunReason {
  if (policy.flaky.rule === 'retries') return { rule: 'retries', allowance: policy.retries.flaky };
  return {
    rule: 'evidence',
    threshold: policy.flaky.threshold,
    posterior: decision.posterior ?? 0,
    ...(decision.sibling ? { sibling: decision.sibling } : {}),
  };
}
