// Is the target itself green? Asked before a job that rode a train alone is failed: a target that
// fails its own gates would otherwise fail every queued job, one by one, for a fault none of them
// made. The target tip is judged exactly as a train is (a worktree at the tip, the same gates, the
// verdict cached by tree), so one target tree is gated at most once per gates hash (and its flaky
// re-runs under the policy's flaky rule, when it fails), and a target tree with a cached verdict
// costs no gate run.
import { gatesHash, type LoadedPolicy } from '../../config/index.js';
import type { BuiltTrain } from '../trains/buildTrain.js';
import type { FlakyRecord } from '../../store/index.js';
import { flakeOf, gateRunOf } from '../plan/flakyPlan.js';
import { rerunDecision, type RerunContext } from '../trains/rerunTrain.js';
import { judgeTrain, type JudgeContext } from './judge.js';

export type TargetHealth =
  /**
   * `flake`: a gate failed on the target and a re-run of the same tree passed (policy flaky): a
   * flake on a known-good tree, told in the journal of the job the check was made for (settlement.ts).
   */
  | { kind: 'green'; cached: boolean; log: string | null; flake?: FlakyRecord }
  /** `train`: the run that judged the target tree (this check, or an earlier one). */
  | { kind: 'red'; cached: boolean; gate: string; status: string; log: string | null; train: string }
  /** The gates could not run on the target (infrastructure): nothing is known. */
  | { kind: 'unknown'; status: string; log: string | null }
  /** A signal stopped the target's gate. */
  | { kind: 'stopped' };

export interface TargetCheckInput {
  loaded: LoadedPolicy;
  /** The target tip the failed train was built on, and its tree. */
  base: string;
  baseTree: string;
  batchId: string;
  /** The job that failed alone (named in the progress event); with `first`, the head job. */
  job: string;
  /** Gated before the drain's first train: its FAIL was voided (drain.ts recheckVoidedTarget). */
  first?: boolean;
}

/** The target tree's verdict from the cache, or null when this tree was never judged. */
export function cachedTargetHealth(ctx: JudgeContext, input: TargetCheckInput): TargetHealth | null {
  const record = ctx.store.getVerdict(input.baseTree, gatesHash(input.loaded.policy.gates));
  if (!record) return null;
  if (record.verdict === 'PASS') return { kind: 'green', cached: true, log: record.log };
  return { kind: 'red', cached: true, gate: record.reason ?? '(cached)', status: record.status ?? 'FAIL', log: record.log, train: record.train };
}

export async function checkTarget(ctx: RerunContext, input: TargetCheckInput): Promise<TargetHealth> {
  const known = cachedTargetHealth(ctx, input);
  if (known) return known;
  // Its own train id (and log): `<batch>-target`, `<batch>-target-2`, ...
  const trainId = ctx.store.freshLogId(`${input.batchId}-target`);
  ctx.emit({ type: 'checking_target', target: input.loaded.target, base: input.base, train: trainId, job: input.job, ...(input.first ? { first: true } : {}) });
  // The target tip is a train with no member: nothing is merged, the base itself is checked out.
  const built: BuiltTrain = { kind: 'fast-forward', base: input.base, train: input.base, tree: input.baseTree, members: [], skipped: [], contained: [] };
  const ids = { batchId: input.batchId, trainId };
  const train = { loaded: input.loaded, built, baseTree: input.baseTree, ids, members: [] };
  let judgement = await judgeTrain(ctx, train);
  // A red target stops the whole queue and is cached: a gate that fails on the target is judged as
  // a lone job's is (plan/flakyPlan.ts), so one unlucky run does not stop the drain.
  const runs = [gateRunOf(judgement, 1, trainId)];
  for (;;) {
    const decision = rerunDecision(ctx, input.loaded.policy, { members: 1, prior: { key: trainId, runs: 0, reruns: 0 }, runs });
    if (decision.kind === 'settle' || ctx.abort.aborted) break;
    judgement = await judgeTrain(ctx, { ...train, rerun: decision.run });
    runs.push(gateRunOf(judgement, decision.run, trainId));
  }
  ctx.flakes.record(runs, input.baseTree);
  switch (judgement.verdict) {
    case 'PASS': {
      const flake = flakeOf(runs, input.baseTree);
      return { kind: 'green', cached: judgement.cached, log: judgement.log, ...(flake ? { flake } : {}) };
    }
    case 'FAIL':
      return { kind: 'red', cached: judgement.cached, gate: judgement.failure.gate, status: judgement.failure.status, log: judgement.log, train: trainId };
    case 'INFRA':
      return { kind: 'unknown', status: `${judgement.failure.reason}: ${judgement.failure.status}`, log: judgement.log };
    case 'STOPPED':
      return { kind: 'stopped' };
    default: {
      const never: never = judgement;
      throw new Error(`unknown verdict ${JSON.stringify(never)}`);
    }
  }
}
