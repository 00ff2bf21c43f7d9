// Flake-aware verdicts, as pure functions: a gate run is evidence, not a verdict. A culprit fails
// every run; a good tree fails a flaky gate's run with the gate's flake rate. What the rate is, is
// a belief (rateBelief) from the gate's history (lib/stats/flakeTally.ts: its clean runs and its
// flakes): deterministic, or flaky at a rate that follows a Beta distribution. After `fails` FAILs
// of the same tree and no PASS, the posterior that the tree holds a culprit is
//
//   q / (q + (1 - q) * E[rate^fails])      q = 1 - (1 - p)^members, p the expected culprit rate
//
// A lone job is failed only once that posterior reaches the threshold (policy flaky.threshold,
// 0.99); below it, its tree is gated again. A batch is gated again (once) only when a flake is
// likely enough to pay for the bisection it would cost; otherwise it is split as before, and a
// flake inside it shows further down (its last member meets the batch's FAIL, and is gated again).
// A gate whose history shows many clean runs and no flake is believed deterministic: its FAIL is
// final at once and costs no extra run (docs/drain.md, "Flaky gates: the evidence rule").

/** What the history says about one gate (lib/stats/flakeTally.ts). */
export interface GateEvidence {
  /** Fresh runs of the gate that passed. */
  passed: number;
  /** Its failed runs of good trees: each failed run of a tree that a later fresh run of the same tree passed. */
  flakes: number;
}

/** A gate nothing is known about yet. */
export const NO_EVIDENCE: GateEvidence = { passed: 0, flakes: 0 };

/**
 * What a gate's rate is believed to be before its history says anything: with weight PRIOR_FLAKY
 * it is flaky, its rate drawn from Beta(RATE_PRIOR.a, RATE_PRIOR.b) (mean 0.05); otherwise it is
 * deterministic (rate 0). Each clean run moves weight to "deterministic" and to small rates; the
 * first flake rules "deterministic" out. Small rates stay plausible for about a hundred clean runs,
 * so a gate that flakes once in a hundred runs is not taken as deterministic after thirty; after
 * about a hundred clean runs (at a culprit rate near 0.1) its lone FAIL is final at once.
 */
export const PRIOR_FLAKY = 0.5;
export const RATE_PRIOR = { a: 1, b: 19 } as const;

/** The posterior over the gate's rate: weight of "flaky", and the Beta it follows if flaky. */
export interface RateBelief {
  flaky: number;
  a: number;
  b: number;
}

export function rateBelief(gate: GateEvidence): RateBelief {
  const a = RATE_PRIOR.a + gate.flakes;
  const b = RATE_PRIOR.b + gate.passed;
  if (gate.flakes > 0) return { flaky: 1, a, b };
  // The chance a flaky gate passes `passed` runs in a row, over the prior: B(a, b + n) / B(a, b).
  let clean = 1;
  for (let i = 0; i < gate.passed; i += 1) clean *= (RATE_PRIOR.b + i) / (RATE_PRIOR.a + RATE_PRIOR.b + i);
  const flaky = (PRIOR_FLAKY * clean) / (PRIOR_FLAKY * clean + 1 - PRIOR_FLAKY);
  return { flaky, a, b };
}

/** The chance a good tree fails `fails` fresh runs of the gate in a row: E[rate^fails] under the belief. */
export function goodTreeFails(gate: GateEvidence, fails: number): number {
  const { flaky, a, b } = rateBelief(gate);
  let likelihood = flaky;
  for (let i = 0; i < fails; i += 1) likelihood *= (a + i) / (a + b + i);
  return likelihood;
}

/** The gate's expected flake rate (what a message shows): E[rate] under the belief. */
export function flakeRateOf(gate: GateEvidence): number {
  return goodTreeFails(gate, 1);
}

/**
 * The posterior that a tree with `members` jobs holds a culprit after `fails` FAILs and no PASS of
 * the gate. `sibling`: the train is the first half of a failed train whose other half (`sibling`
 * jobs) waits unjudged. That parent's FAIL is evidence too: were this half good, the parent failed
 * for a culprit in the other half (chance Q) or by a flake of its own, so a good half explains all
 * its FAILs with chance Q E[rate^fails] + (1 - Q) E[rate^(fails + 1)].
 */
export function culpritPosterior(jobRate: number, members: number, gate: GateEvidence, fails: number, sibling = 0): number {
  const rate = clamp(jobRate, 0, 1);
  const q = 1 - (1 - rate) ** Math.max(1, members);
  const k = Math.max(1, fails);
  const other = sibling > 0 ? 1 - (1 - rate) ** sibling : 1;
  const good = other * goodTreeFails(gate, k) + (other < 1 ? (1 - other) * goodTreeFails(gate, k + 1) : 0);
  const flake = (1 - q) * good;
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
  /** Jobs of the other half of the failed train this one was split from, waiting unjudged (0: none). */
  sibling?: number;
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
  const posterior = culpritPosterior(jobRate, members, gate, fails, input.sibling ?? 0);
  if (members === 1) return posterior >= threshold ? { kind: 'settle', why: 'evidence', posterior } : { kind: 'rerun', why: 'below_threshold', posterior };
  // A batch: once, and only when the flake it may be costs more in bisection than the run.
  const worth = fails === 1 && (1 - posterior) * splitCost(members) > 1;
  return worth ? { kind: 'rerun', why: 'batch_flake_likely', posterior } : { kind: 'settle', why: 'batch', posterior };
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
