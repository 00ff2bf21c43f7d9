// Flaky gates (policy `flaky`), as pure functions: after a train's gate failed, is its tree gated
// again before the FAIL is settled? Under the evidence rule (the default, ./flakeEvidence.ts) a lone
// job is re-run until it is a culprit beyond flaky.threshold, and a batch once when a flake is
// likely enough to pay for the bisection it would cost. Under the fixed allowance (flaky.rule
// "retries"), a lone job is re-run up to `retries.flaky` times and a batch bisects. A later PASS
// lands the train and the gate is recorded as flaky for that tree. Whatever made it run again (a
// flaky re-run, an infra requeue or a crash that rebuilt the same train), a train is gated at most
// MAX_TRAIN_RUNS times in all. The train runner (trains/rerunTrain.ts) asks `decideRerun` after each
// run and performs what it says; the settlement records what `flakeOf` finds.
import type { Policy } from '../../config/index.js';
import type { FlakyRecord, GateResult, GateRun, JobRecord, RerunReason, TrainRuns } from '../../store/index.js';
import type { Judgement } from '../gates/judge.js';
import { decideOnEvidence, type EvidenceDecision, type GateEvidence } from './flakeEvidence.js';
import { waitingHalves } from './trainPlan.js';

export type { RerunReason };

/** A train (the same members at the same tips on the same base) is gated at most this many times. */
export const MAX_TRAIN_RUNS = 5;

/**
 * The failures a re-run may turn: the gate's exit status or its timeout. A policy refusal
 * (`policy_refused`), a batch stage that left no ledger line (`no_ledger_line`: a costly batch,
 * and the ledger contract is not luck) and a failed refresh entry are not re-run.
 */
export const RERUN_REASONS: readonly string[] = ['gate', 'timeout'];

/** The identity of a train across rebuilds: its base and its members at their tips, in merge order. */
export function trainKey(base: string, members: readonly Pick<JobRecord, 'id' | 'tip'>[]): string {
  return `${base} ${members.map((m) => `${m.id}@${m.tip}`).join(' ')}`;
}

/** What the members' records say this train had before this drainer built it (the most any of them says). */
export function priorRuns(key: string, members: readonly Pick<JobRecord, 'trainRuns'>[]): TrainRuns {
  const known = members.map((m) => m.trainRuns).filter((t): t is TrainRuns => t !== undefined && t.key === key);
  const most = (of: (t: TrainRuns) => number) => Math.max(0, ...known.map(of));
  return { key, runs: most((t) => t.runs), reruns: most((t) => t.reruns), fails: most((t) => t.fails ?? 0) };
}

export interface RunHistory {
  /** How many jobs ride the train. */
  members: number;
  /** Runs of this train recorded before (earlier drains), and how many of them were flaky re-runs. */
  prior: TrainRuns;
  /** This drainer's runs of the train, oldest first (the first may be a verdict from the cache). */
  runs: readonly GateRun[];
  /** The waiting other half of the failed train this one was split from (siblingOf); 0 or absent: none. */
  sibling?: number;
}

/**
 * Jobs of the other half of the failed train that `members` (a train at `attempt` of batch
 * `batchId`) was split from, waiting unjudged in the queue: a failed train splits into two halves at
 * the next attempt, the first rides, the second waits (plan/settlement.ts). None for a train that is
 * no first half.
 */
export function siblingOf(
  jobs: readonly Pick<JobRecord, 'id' | 'state' | 'requeued' | 'reason' | 'batch'>[],
  batchId: string,
  attempt: number,
  members: readonly Pick<JobRecord, 'id'>[],
): number {
  return waitingHalves(jobs, batchId, members).filter((job) => job.batch?.attempt === attempt).length;
}

/**
 * How a failed run is judged (policy `flaky.rule`): `evidence` (the default) re-runs what the
 * evidence rule says (./flakeEvidence.ts); `retries` is the fixed allowance of `retries.flaky`
 * re-runs of a lone job, as before.
 */
export type RerunRule =
  | { kind: 'retries'; allowance: number }
  | { kind: 'evidence'; threshold: number; jobRate: () => number; gate: (name: string) => GateEvidence };

/** Why a FAIL's re-runs stopped, for a train that ran more than once: the rule's last decision. */
export interface RerunEnd {
  why: Extract<RerunDecision, { kind: 'settle' }>['why'];
  /** Under the evidence rule: the posterior that the train held a culprit, and the threshold. */
  posterior?: number;
  threshold?: number;
}

/** `RerunEnd` in words (the failure message): the threshold reached, or the most runs of one train. */
export function rerunEndText(end: RerunEnd): string {
  const p = end.posterior === undefined ? '' : `a culprit with probability ${end.posterior.toFixed(3)}`;
  if (end.why === 'evidence' && end.threshold !== undefined) return `${p}, at least flaky.threshold ${end.threshold}`;
  if (end.why === 'train_cap') return `${MAX_TRAIN_RUNS} runs, the most one train is gated${p ? `; ${p}` : ''}`;
  if (end.why === 'allowance_spent') return 'retries.flaky spent';
  return 'policy flaky';
}

/** Why the evidence rule gated a tree again, in words (the progress line and `land why`). */
export function rerunEvidenceText(members: number, posterior: number, threshold: number, sibling = 0): string {
  const p = posterior.toFixed(3);
  const parent = sibling > 0 ? `; the failed train it was split from counted too (its other ${sibling} job(s) wait)` : '';
  if (members > 1) return `a flake is likely enough (a culprit rides it with probability ${p}) that the batch is gated again before it is split${parent}`;
  return `a culprit with probability ${p}, below flaky.threshold ${threshold}: not yet failed${parent}`;
}

/** The fixed allowance: `retries.flaky` re-runs of a lone job. */
export const retriesRule = (allowance: number): RerunRule => ({ kind: 'retries', allowance });

/**
 * The policy's rule; `jobRate` (the culprit rate the window expects) and `gate` (a gate's history)
 * feed the evidence rule, read only when a run failed.
 */
export function rerunRuleOf(policy: Pick<Policy, 'flaky' | 'retries'>, jobRate: () => number, gate: (name: string) => GateEvidence): RerunRule {
  if (policy.flaky.rule === 'retries') return retriesRule(policy.retries.flaky);
  return { kind: 'evidence', threshold: policy.flaky.threshold, jobRate, gate };
}

export type RerunDecision =
  /**
   * Run the gates again on the same tree; `run` is its number within the train. Under the evidence
   * rule, `why` and `posterior` (that the train holds a culprit, after the runs so far) say why.
   */
  | { kind: 'rerun'; run: number; why?: EvidenceDecision['why']; posterior?: number; sibling?: number }
  /** Settle the last run's verdict. */
  | {
      kind: 'settle';
      why: 'not_failed' | 'batch' | 'reason' | 'allowance_spent' | 'train_cap' | 'no_run' | 'evidence';
      /** Under the evidence rule: the posterior that the train holds a culprit. */
      posterior?: number;
    };

/** Gate runs of this history that ran (a cached verdict ran none). */
const ran = (runs: readonly GateRun[]) => runs.filter((r) => !r.cached).length;

export function decideRerun(history: RunHistory, rule: RerunRule): RerunDecision {
  const last = history.runs.at(-1);
  if (!last) return { kind: 'settle', why: 'no_run' };
  if (last.verdict !== 'FAIL') return { kind: 'settle', why: 'not_failed' };
  if (rule.kind === 'retries' && history.members !== 1) return { kind: 'settle', why: 'batch' };
  if (last.reason === null || !RERUN_REASONS.includes(last.reason)) return { kind: 'settle', why: 'reason' };
  if (rule.kind === 'retries' && history.prior.reruns + history.runs.length - 1 >= rule.allowance) return { kind: 'settle', why: 'allowance_spent' };
  const capped = history.prior.runs + ran(history.runs) >= MAX_TRAIN_RUNS;
  if (rule.kind === 'retries') return capped ? { kind: 'settle', why: 'train_cap' } : { kind: 'rerun', run: history.runs.length + 1 };
  const decision = decideOnEvidence({
    members: history.members,
    fails: failsOf(history),
    sibling: history.sibling ?? 0,
    jobRate: rule.jobRate(),
    gate: rule.gate(last.gate ?? ''),
    threshold: rule.threshold,
  });
  const { posterior } = decision;
  if (decision.kind === 'settle') return { kind: 'settle', why: decision.why, posterior };
  // The cap comes first: the FAIL is settled below the threshold, and the message says with what posterior.
  if (capped) return { kind: 'settle', why: 'train_cap', posterior };
  const sibling = history.sibling ? { sibling: history.sibling } : {};
  return { kind: 'rerun', run: history.runs.length + 1, why: decision.why, posterior, ...sibling };
}

/**
 * The FAILs of the train's tree the evidence counts: those recorded by earlier drains, and this
 * drainer's. A cached FAIL is one of the earlier ones when the train failed before (the same tree,
 * the same observation), else it is the first (a batch's FAIL met by its last member alone).
 */
export function failsOf(history: Pick<RunHistory, 'prior' | 'runs'>): number {
  const failed = history.runs.filter((r) => r.verdict === 'FAIL');
  const before = history.prior.fails ?? 0;
  return before > 0 ? before + failed.filter((r) => !r.cached).length : failed.length;
}

/** The runs of a train as the records keep them after `runs`: absolute counts, not increments. */
export function runsAfter(prior: TrainRuns, runs: readonly GateRun[]): TrainRuns {
  const fails = (prior.fails ?? 0) + runs.filter((r) => r.verdict === 'FAIL' && !r.cached).length;
  return { key: prior.key, runs: prior.runs + ran(runs), reruns: prior.reruns + Math.max(0, runs.length - 1), fails };
}

/** A FAIL, then a PASS of the same tree: the gate that failed (in the last failed run) is flaky. */
export function flakeOf(runs: readonly GateRun[], tree: string): FlakyRecord | null {
  const passed = runs.at(-1);
  const failed = runs.filter((r) => r.verdict === 'FAIL').at(-1);
  if (passed?.verdict !== 'PASS' || !failed) return null;
  return { gate: failed.gate ?? '(unknown)', tree, train: passed.train, failed, passed };
}

/** One run of the train, as the metrics row and the job record keep it. */
export function gateRunOf(judgement: Judgement, run: number, trainId: string): GateRun {
  const results: GateResult[] = judgement.telemetry.mode !== 'cached' && judgement.telemetry.mode !== 'none' ? (judgement.telemetry.results ?? []) : [];
  const from = judgement.telemetry.mode === 'cached' ? judgement.telemetry.cachedFrom : undefined;
  const failure = judgement.failure;
  return {
    run,
    train: judgement.cached && from ? from : trainId,
    cached: judgement.cached,
    verdict: judgement.verdict,
    reason: failure && failure.kind !== 'stopped' ? failure.reason : null,
    gate: failure ? failure.gate : null,
    status: failure && failure.kind !== 'stopped' ? failure.status : null,
    seconds: judgement.seconds,
    log: judgement.log,
    results,
  };
}
