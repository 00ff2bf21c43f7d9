// The verdict on one train, from the cheapest source that can give it, in four stages:
// - cheap verdicts (./judgeCheap.ts): the fast-path decision for a lone job (cached PASS or
//   accepted proof), else the verdict cache for the train's tree;
// - the worktree (./judgeWorktree.ts): the train's checkout, its refresh entries, trusted paths;
// - the gates (./judgeGates.ts): the per-gate selection (a path-scoped gate whose files did not
//   change keeps its ancestor's PASS), and only then the gates themselves;
// - the record (./judgeRecord.ts): a PASS that ran gates is recorded as a verdict, a proof and
//   per-gate passes, so the next train built on this tree needs none of it again.
// With trusted paths (policy `trusted`, ./trusted.ts) the gates run on the gated tree, and the
// cache and proofs are keyed by it: a verdict is about the content that was tested.
import { gatesHash } from '../../config/index.js';
import { nowIso } from '../../queue/index.js';
import type { QueueStore } from '../../store/index.js';
import type { BuiltTrain } from '../trains/buildTrain.js';
import { cheapVerdict } from './judgeCheap.js';
import type { Judgement } from './judgement.js';
import type { JudgeContext, JudgeOptions, Judging } from './judging.js';
import { judgeInWorktree } from './judgeWorktree.js';
import { LogSink } from './logSink.js';
import { gateLogTail } from './logTail.js';
import { isolationOf } from './sandbox.js';
import { gatedTreeOf, trustedByMember, trustedTelemetry } from './trusted.js';

// What callers of judgeTrain name, in one import.
export type { Judgement } from './judgement.js';
export type { FastPathCheck, JudgeContext, JudgeOptions } from './judging.js';

export async function judgeTrain(ctx: JudgeContext, options: JudgeOptions): Promise<Judgement> {
  const j = await startJudging(ctx, options);
  let judgement: Judgement;
  try {
    if (j.gated.restored.length)
      j.log.line(`== trusted paths restored from the target for the gates: ${j.gated.restored.join(' ')} (gated tree ${j.gated.tree})`);
    // A re-run asks the gates themselves: the cached FAIL it re-judges is not the answer.
    const cheap = j.rerun === null ? await cheapVerdict(j, options.fastPath ?? null) : null;
    judgement = withTrusted(j, cheap ?? (await judgeInWorktree(j)));
  } finally {
    await j.log.close();
  }
  return withLogTail(ctx.store, options.ids.trainId, judgement);
}

/** The train's log opened with its first line, and what the stages need to know about the train. */
async function startJudging(ctx: JudgeContext, options: JudgeOptions): Promise<Judging> {
  const { loaded, built, ids, members } = options;
  const rerun = options.rerun ?? null;
  const logPath = ctx.store.logPath(ids.trainId);
  const log = new LogSink(logPath, { maxBytes: loaded.policy.logs.maxBytes });
  const ridden = members.map((m) => m.id).join(' ');
  log.line(
    rerun === null
      ? `== train ${ids.trainId} at ${built.train} on ${built.base} (${nowIso()}): ${ridden}`
      : `== run ${rerun} of train ${ids.trainId} at ${built.train} (${nowIso()}): the gates run again on the same tree (a failed run may be a flake: policy flaky)`,
  );
  const gated = await gatedTreeOf(ctx.cwd, loaded.policy, built.base, built.tree);
  return {
    ctx,
    loaded,
    built,
    baseTree: options.baseTree,
    ids,
    members,
    lone: members.length === 1 ? (members[0] ?? null) : null,
    hash: gatesHash(loaded.policy.gates),
    log,
    logPath,
    rerun,
    gated,
    trustedByJob: gated.restored.length ? await trustedByMember(ctx.cwd, loaded.policy, built.base, stepsOf(built)) : {},
    isolation: isolationOf(ctx.sandbox, loaded.policy.sandbox),
  };
}

/**
 * A FAIL or INFRA carries the excerpt of its deciding gate's output (its failure lines, then its
 * last lines: excerpt.ts), read from the stored log once it is closed: this train's, or for a
 * verdict from the cache the judging train's.
 */
function withLogTail(store: QueueStore, trainId: string, judgement: Judgement): Judgement {
  if (judgement.verdict !== 'FAIL' && judgement.verdict !== 'INFRA') return judgement;
  const { telemetry } = judgement;
  const logId = telemetry.mode === 'cached' ? telemetry.cachedFrom : trainId;
  const tail = logId ? gateLogTail(store, logId, judgement.failure.gate) : null;
  return tail ? { ...judgement, gateLogTail: tail } : judgement;
}

/** The member chain of a train, for trustedByMember. */
function stepsOf(built: BuiltTrain): { job: string; commit: string }[] {
  return built.members.map((m) => ({ job: m.job.id, commit: m.commit }));
}

/** The judgement's telemetry names the trusted paths the gates saw in the target's version. */
function withTrusted(j: Judging, judgement: Judgement): Judgement {
  const trusted = trustedTelemetry(j.gated, j.trustedByJob);
  return trusted ? { ...judgement, telemetry: { ...judgement.telemetry, trusted } } : judgement;
}
