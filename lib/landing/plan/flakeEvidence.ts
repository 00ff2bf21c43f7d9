// Flake-aware verdicts, as pure functions: a gate run is evidence, not a verdict. A culprit fails
// every run; a flaky gate fails a good tree with probability `rate` (estimated from the gate's
// history, lib/stats/flakeTally.ts: flakeRateOf). After `fails` FAILs of the same tree and no
// PASS, the posterior that the tree holds a culprit is
//
//   q / (q + (1 - q) * rate^fails)      q = 1 - (1 - p)^members, p the expected culprit rate
//
// A lone job is failed only once that posterior reaches the threshold (policy flaky.threshold,
// 0.99); below it, its tree is gated again. A batch is gated again (once) only when a flake is
// likely enough to pay for the bisection it would cost; otherwise it is split as before, and a
// flake inside it shows further down (the tree FAILed, then PASSes when its last member is gated
// again). A gate whose history shows many clean runs and no flake has a rate near 0: its FAIL is
// final at once and costs no extra run (docs/drain.md, "Flaky gates").

/** What the history says about one gate (lib/stats/flakeTally.ts). */
export interface GateEvidence {
  /** Fresh runs of the gate that passed. */
  passed: number;
  /** Trees it failed and then passed on a fresh run of the same tree. */
  flakes: number;
}

/** A gate nothing is known about yet. */
export const NO_EVIDENCE: GateEvidence = { passed: 0, flakes: 0 };

/**
 * Before its first flake, a gate is not taken as deterministic at once: a gate is flaky with this
 * prior, and a flaky gate fails a good tree at TYPICAL_RATE. Each run it passes makes "flaky" less
 * likely (a flaky gate would have failed some of them), so after about 30 clean runs its FAIL is
 * final at once; before that, a lone FAIL is confirmed by a second run. A deterministic gate pays
 * those few confirmations once per repository; a flaky one is caught before it ejects a good change.
 */
export const PRIOR_FLAKY = 0.1;
export const TYPICAL_RATE = 0.05;

/** A flake rate estimate is never taken above this: a gate failing half its runs is broken, not flaky. */
const MAX_RATE = 0.5;

/** The gate's flake rate as the decision uses it: flakes per run on good trees, or the prior's expectation before any flake. */
export function flakeRateOf(gate: GateEvidence): number {
  if (gate.flakes > 0) return Math.min(MAX_RATE, gate.flakes / Math.max(1, gate.passed + gate.flakes));
  const flaky = PRIOR_FLAKY * (1 - TYPICAL_RATE) ** Math.max(0, gate.passed);
  return (flaky / (flaky + 1 - PRIOR_FLAKY)) * TYPICAL_RATE;
}

/** The posterior that a tree with `members` jobs holds a culprit after `fails` FAILs and no PASS. */
export function culpritPosterior(jobRate: number, members: number, rate: number, fails: number): number {
  const q = 1 - (1 - clamp(jobRate, 0, 1)) ** Math.max(1, members);
  const flake = (1 - q) * Math.max(0, rate) ** Math.max(1, fails);
  return q + flake <= 0 ? 1 : q / (q + flake);
}

/** Gate runs a flake in a batch of `members` wastes when the batch is split instead of run again. */
export function splitCost(members: number): number {
  return Math.log2(Math.max(2, members)) + 1;
}

export interface EvidenceInput {
  /** Jobs in the train. */
  members: number;
  /** FAIL runs of this tree so far (a verdict from the cache is one), no PASS among them. */
  fails: number;
  /** The culprit rate a job is expected to have (plan/windowPlan.ts expectedRate). */
  jobRate: number;
  /** The failing gate's history. */
  gate: GateEvidence;
  /** The posterior a lone job must reach to be failed (policy flaky.threshold). */
  threshold: number;
}

export type EvidenceDecision =
  /** Gate the same tree again. */
  | { kind: 'rerun'; why: 'below_threshold' | 'batch_flake_likely'; posterior: number }
  /** Take the FAIL. */
  | { kind: 'settle'; why: 'evidence' | 'batch'; posterior: number };

export function decideOnEvidence(input: EvidenceInput): EvidenceDecision {
  const { members, fails, jobRate, gate, threshold } = input;
  const posterior = culpritPosterior(jobRate, members, flakeRateOf(gate), fails);
  if (members === 1) return posterior >= threshold ? { kind: 'settle', why: 'evidence', posterior } : { kind: 'rerun', why: 'below_threshold', posterior };
  // A batch: once, and only when the flake it may be costs more in bisection than the run.
  const worth = fails === 1 && (1 - posterior) * splitCost(members) > 1;
  return worth ? { kind: 'rerun', why: 'batch_flake_likely', posterior } : { kind: 'settle', why: 'batch', posterior };
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
