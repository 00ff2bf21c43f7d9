// A train's judgement with its flaky re-runs (policy retries.flaky): the train is judged once
// (cache or gates); while plan/flakyPlan.ts says "run again" (a lone job's gate failed, allowance
// left, fewer than five runs of this train), the failed run is journaled and the gates run again
// on the same tree. The last run's verdict is what the train settles; every run is kept for the
// metrics row and the job record. The decision is pure; this module performs it.
import { applyChanges, nowIso, rerunChanges } from '../../queue/index.js';
import type { GateRun, JobRecord, TrainRuns } from '../../store/index.js';
import { judgeTrain, type FastPathCheck, type JudgeContext, type Judgement, type JudgeOptions } from '../gates/judge.js';
import { decideRerun, gateRunOf, priorRuns, retriesRule, runsAfter, trainKey } from '../plan/flakyPlan.js';
import { judgedSteps, withdrawals } from '../plan/trainSteps.js';

/**
 * The train to judge with the drain's fast-path decision (null: none made). Refresh entries that
 * commit on top of the train change `built` here: that commit is what was judged and lands.
 */
export type TrainToJudge = Omit<JudgeOptions, 'fastPath' | 'rerun'> & { fastPath: FastPathCheck | null };

/** The last run's judgement, every run of this drainer (oldest first), and the runs recorded before. */
export interface RerunOutcome {
  judgement: Judgement;
  runs: GateRun[];
  prior: TrainRuns;
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

export async function judgeWithReruns(ctx: JudgeContext, t: TrainToJudge): Promise<RerunOutcome> {
  const { ids, members } = t;
  const prior = priorRuns(trainKey(t.built.base, members), members);
  let judgement = await judgeOnce(ctx, t, t.fastPath, null);
  const runs = [gateRunOf(judgement, 1, ids.trainId)];
  for (;;) {
    const decision = decideRerun({ members: members.length, prior, runs }, retriesRule(t.loaded.policy.retries.flaky));
    if (decision.kind === 'settle' || stopAsked(ctx, members)) return { judgement, runs, prior };
    const failed = runs.at(-1) as GateRun;
    await applyChanges(ctx.store, rerunChanges(members, { train: ids.trainId, run: decision.run, failed, trainRuns: runsAfter(prior, runs) }));
    ctx.emit({
      type: 'gate_rerun',
      train: ids.trainId,
      job: (members[0] as JobRecord).id,
      run: decision.run,
      allowance: t.loaded.policy.retries.flaky,
      gate: failed.gate ?? '?',
      status: failed.status ?? 'FAIL',
    });
    judgement = await judgeOnce(ctx, t, null, decision.run);
    runs.push(gateRunOf(judgement, decision.run, ids.trainId));
  }
}
