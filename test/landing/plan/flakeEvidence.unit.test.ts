// The flake evidence rule (plan/flakeEvidence.ts) and the replay with a flaky gate
// (plan/simulate.ts): the posterior, what each decision re-runs, and the replay's invariants.
import { describe, expect, it } from 'vitest';
import { culpritPositions, prng, queueSeed } from '../../../bench/sweep.js';
import { culpritPosterior, decideOnEvidence, flakeRateOf, NO_EVIDENCE } from '../../../lib/landing/plan/flakeEvidence.js';
import { NO_HISTORY, simulateDrain, type SimFlakes } from '../../../lib/landing/plan/simulate.js';

describe('culpritPosterior', () => {
  it('is 1 for a deterministic gate, and grows with each FAIL of a flaky one', () => {
    expect(culpritPosterior(0.1, 1, 0, 1)).toBe(1);
    // p = 0.1, rate 0.05: odds 1/9 x 20 per FAIL.
    expect(culpritPosterior(0.1, 1, 0.05, 1)).toBeCloseTo(0.1 / (0.1 + 0.9 * 0.05), 10);
    expect(culpritPosterior(0.1, 1, 0.05, 3)).toBeGreaterThan(0.99);
    expect(culpritPosterior(0.1, 1, 0.05, 2)).toBeLessThan(0.99);
  });

  it('a batch is more likely to hold a culprit than one job', () => {
    expect(culpritPosterior(0.1, 8, 0.05, 1)).toBeGreaterThan(culpritPosterior(0.1, 1, 0.05, 1));
  });
});

describe('flakeRateOf', () => {
  it('is flakes per run on good trees once a flake is recorded', () => {
    expect(flakeRateOf({ passed: 19, flakes: 1 })).toBeCloseTo(0.05, 10);
  });

  it('before any flake, fades from the prior with every clean run', () => {
    const fresh = flakeRateOf(NO_EVIDENCE);
    expect(fresh).toBeGreaterThan(0);
    expect(flakeRateOf({ passed: 30, flakes: 0 })).toBeLessThan(fresh / 4);
    expect(flakeRateOf({ passed: 200, flakes: 0 })).toBeLessThan(1e-4);
  });
});

describe('decideOnEvidence', () => {
  const input = { members: 1, fails: 1, jobRate: 0.1, threshold: 0.99 };
  it('re-runs a lone FAIL of a known flaky gate until the posterior reaches the threshold', () => {
    const gate = { passed: 19, flakes: 1 };
    expect(decideOnEvidence({ ...input, gate })).toMatchObject({ kind: 'rerun', why: 'below_threshold' });
    expect(decideOnEvidence({ ...input, fails: 2, gate })).toMatchObject({ kind: 'rerun' });
    expect(decideOnEvidence({ ...input, fails: 3, gate })).toMatchObject({ kind: 'settle', why: 'evidence' });
  });

  it('takes the FAIL of a gate with a long clean history at once', () => {
    expect(decideOnEvidence({ ...input, gate: { passed: 300, flakes: 0 } })).toMatchObject({ kind: 'settle', why: 'evidence' });
  });

  it('re-gates a failed batch once only where a flake is likely enough to pay for its bisection', () => {
    const gate = { passed: 19, flakes: 1 };
    expect(decideOnEvidence({ ...input, members: 8, jobRate: 0.01, gate })).toMatchObject({ kind: 'rerun', why: 'batch_flake_likely' });
    expect(decideOnEvidence({ ...input, members: 8, jobRate: 0.01, fails: 2, gate })).toMatchObject({ kind: 'settle', why: 'batch' });
    expect(decideOnEvidence({ ...input, members: 8, jobRate: 0.1, gate })).toMatchObject({ kind: 'settle', why: 'batch' });
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
