// The flake evidence rule (plan/flakeEvidence.ts) and the replay with a flaky gate
// (plan/simulate.ts): the posterior, what each decision re-runs, and the replay's invariants.
import { describe, expect, it } from 'vitest';
import { culpritPositions, prng, queueSeed } from '../../../bench/sweep.js';
import {
  culpritPosterior,
  decideOnEvidence,
  flakeRateOf,
  goodTreeFails,
  NO_EVIDENCE,
  PRIOR_FLAKY,
  RATE_PRIOR,
  rateBelief,
} from '../../../lib/landing/plan/flakeEvidence.js';
import { NO_HISTORY, simulateDrain, type SimFlakes } from '../../../lib/landing/plan/simulate.js';

describe('rateBelief and goodTreeFails', () => {
  it('before any run: half "deterministic", half flaky at a Beta(1, 19) rate (mean 0.05)', () => {
    expect(rateBelief(NO_EVIDENCE)).toEqual({ flaky: PRIOR_FLAKY, a: RATE_PRIOR.a, b: RATE_PRIOR.b });
    expect(goodTreeFails(NO_EVIDENCE, 1)).toBeCloseTo(0.5 * 0.05, 12);
    // E[r^2] of Beta(1, 19) = 1 x 2 / (20 x 21).
    expect(goodTreeFails(NO_EVIDENCE, 2)).toBeCloseTo(0.5 * (2 / 420), 12);
  });

  it('each clean run moves weight to "deterministic": B(1, 19 + n) / B(1, 19) = 19 / (19 + n) for a flaky gate to pass n runs', () => {
    const n = 100;
    const clean = 19 / (19 + n);
    expect(rateBelief({ passed: n, flakes: 0 }).flaky).toBeCloseTo(clean / (clean + 1), 12);
    expect(flakeRateOf({ passed: n, flakes: 0 })).toBeCloseTo((clean / (clean + 1)) * (1 / (20 + n)), 12);
    expect(flakeRateOf({ passed: 1000, flakes: 0 })).toBeLessThan(1e-4);
  });

  it('one flake rules "deterministic" out; the rate follows flakes and clean runs', () => {
    expect(rateBelief({ passed: 80, flakes: 4 })).toEqual({ flaky: 1, a: 5, b: 99 });
    expect(flakeRateOf({ passed: 80, flakes: 4 })).toBeCloseTo(5 / 104, 12);
    // A gate that flaked once in many runs keeps a small rate, not a zero one.
    expect(flakeRateOf({ passed: 5000, flakes: 1 })).toBeCloseTo(2 / 5021, 12);
  });
});

describe('culpritPosterior', () => {
  it('is 1 when a flaky gate is ruled out, and grows with each FAIL of a gate that may be flaky', () => {
    const known = { passed: 19, flakes: 1 };
    const once = culpritPosterior(0.1, 1, known, 1);
    expect(once).toBeCloseTo(0.1 / (0.1 + 0.9 * goodTreeFails(known, 1)), 12);
    expect(culpritPosterior(0.1, 1, known, 2)).toBeGreaterThan(once);
    expect(culpritPosterior(0.1, 1, { passed: 20_000, flakes: 0 }, 1)).toBeGreaterThan(0.9999);
  });

  it('a batch is more likely to hold a culprit than one job', () => {
    expect(culpritPosterior(0.1, 8, NO_EVIDENCE, 1)).toBeGreaterThan(culpritPosterior(0.1, 1, NO_EVIDENCE, 1));
  });
});

describe('decideOnEvidence', () => {
  const input = { members: 1, fails: 1, jobRate: 1 / 7, threshold: 0.99 };
  it('a new gate: a lone culprit is failed after its third FAIL (the bound at a cold start)', () => {
    expect(decideOnEvidence({ ...input, gate: NO_EVIDENCE })).toMatchObject({ kind: 'rerun', why: 'below_threshold' });
    expect(decideOnEvidence({ ...input, fails: 2, gate: NO_EVIDENCE })).toMatchObject({ kind: 'rerun' });
    expect(decideOnEvidence({ ...input, fails: 3, gate: NO_EVIDENCE })).toMatchObject({ kind: 'settle', why: 'evidence' });
  });

  it('a first half whose other half waits: the failed train it was split from counts, so a new gate fails its lone culprit a run sooner', () => {
    const q = 0.1;
    // Q E[r^k] + (1 - Q) E[r^(k+1)] for a good half, with Q the chance the waiting half holds a culprit.
    const expected = (k: number, s: number) => {
      const Q = 1 - (1 - q) ** s;
      const good = Q * goodTreeFails(NO_EVIDENCE, k) + (1 - Q) * goodTreeFails(NO_EVIDENCE, k + 1);
      return q / (q + (1 - q) * good);
    };
    expect(culpritPosterior(q, 1, NO_EVIDENCE, 2, 1)).toBeCloseTo(expected(2, 1), 12);
    expect(culpritPosterior(q, 1, NO_EVIDENCE, 1, 3)).toBeCloseTo(expected(1, 3), 12);
    // More evidence, never less: above the posterior without it, and below a full extra FAIL of its own tree.
    for (const k of [1, 2, 3]) {
      expect(culpritPosterior(q, 1, NO_EVIDENCE, k, 1)).toBeGreaterThan(culpritPosterior(q, 1, NO_EVIDENCE, k));
      expect(culpritPosterior(q, 1, NO_EVIDENCE, k, 1)).toBeLessThan(culpritPosterior(q, 1, NO_EVIDENCE, k + 1));
    }
    const input1 = { ...input, jobRate: q, gate: NO_EVIDENCE, sibling: 1 };
    expect(decideOnEvidence({ ...input1, fails: 1 })).toMatchObject({ kind: 'rerun' });
    expect(decideOnEvidence({ ...input1, fails: 2 })).toMatchObject({ kind: 'settle', why: 'evidence' });
    // A gate that has passed about twenty times: final at once for such a half (a hundred for a job that rode alone).
    expect(decideOnEvidence({ ...input1, gate: { passed: 21, flakes: 0 } })).toMatchObject({ kind: 'settle', why: 'evidence' });
    expect(decideOnEvidence({ ...input, jobRate: q, gate: { passed: 21, flakes: 0 } })).toMatchObject({ kind: 'rerun' });
  });

  it('a gate with a history of no flakes: its FAIL is final at once (no extra run)', () => {
    expect(decideOnEvidence({ ...input, jobRate: 0.1, gate: { passed: 110, flakes: 0 } })).toMatchObject({ kind: 'settle', why: 'evidence' });
    expect(decideOnEvidence({ ...input, jobRate: 0.1, gate: { passed: 60, flakes: 0 } })).toMatchObject({ kind: 'rerun' });
  });

  it('a known flaky gate (rate about 0.15): a lone FAIL needs more runs before it fails the job', () => {
    const gate = { passed: 85, flakes: 15 };
    expect(decideOnEvidence({ ...input, fails: 3, gate })).toMatchObject({ kind: 'rerun' });
    expect(decideOnEvidence({ ...input, fails: 4, gate })).toMatchObject({ kind: 'settle', why: 'evidence' });
  });

  it('re-gates a failed batch once only where a flake is likely enough to pay for its bisection', () => {
    const gate = { passed: 85, flakes: 15 };
    expect(decideOnEvidence({ ...input, members: 8, jobRate: 0.01, gate })).toMatchObject({ kind: 'rerun', why: 'batch_flake_likely' });
    expect(decideOnEvidence({ ...input, members: 8, jobRate: 0.01, fails: 2, gate })).toMatchObject({ kind: 'settle', why: 'batch' });
    expect(decideOnEvidence({ ...input, members: 8, jobRate: 0.1, gate: { passed: 200, flakes: 0 } })).toMatchObject({ kind: 'settle', why: 'batch' });
  });
});

describe('simulateDrain with a flaky gate', () => {
  const n = 64;
  const queue = (p: number, seed: number) => {
    const at = culpritPositions(n, Math.round(p * n), queueSeed(p, seed));
    return Array.from({ length: n }, (_, i) => at.includes(i + 1));
  };
  const flaky = (rate: number, seed: number, rule: SimFlakes['rule']): SimFlakes => ({ rate, random: prng(seed), rule, history: { ...NO_HISTORY } });

  it('with rate 0 and no re-runs, spends what the deterministic replay spends', () => {
    for (const seed of [1, 2, 3]) {
      const culprits = queue(0.1, seed);
      expect(simulateDrain(culprits, 8, flaky(0, seed, { kind: 'retries', allowance: 0 }))).toEqual(simulateDrain(culprits, 8));
    }
  });

  it('never lands a culprit; re-runs eject fewer good jobs than none', () => {
    let ejectedNone = 0;
    let ejectedTwo = 0;
    for (let seed = 1; seed <= 40; seed += 1) {
      const culprits = queue(0.1, seed);
      for (const [allowance, add] of [
        [0, (k: number) => (ejectedNone += k)],
        [2, (k: number) => (ejectedTwo += k)],
      ] as const) {
        const out = simulateDrain(culprits, 8, flaky(0.15, seed, { kind: 'retries', allowance }));
        expect(out.landed.filter((i) => culprits[i - 1])).toEqual([]);
        expect(out.failed.filter((i) => culprits[i - 1]).length).toBe(culprits.filter(Boolean).length);
        add(out.failed.filter((i) => !culprits[i - 1]).length);
      }
    }
    expect(ejectedNone).toBeGreaterThan(0);
    expect(ejectedTwo).toBeLessThan(ejectedNone);
  });
});
