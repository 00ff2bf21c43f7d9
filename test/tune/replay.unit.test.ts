// The timed replay of `land tune` (lib/tune/replay.ts): the same planner as simulateDrain when
// every job is there at once, and the clock's effects of batch.waitSeconds and batch.parallel.
import { describe, expect, it } from 'vitest';
import { culpritPositions, prng, queueSeed } from '../../bench/sweep.js';
import { newDeterministicGate, simulateDrain } from '../../lib/landing/plan/simulate.js';
import { replayDrain } from '../../lib/tune/replay.js';

const atOnce = (culprits: readonly boolean[]) => culprits.map((culprit) => ({ submitted: 0, culprit }));
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length / 2) - 1] as number;

describe('replayDrain', () => {
  it('spends exactly the gate runs and trains of simulateDrain when every job is submitted at once (parallel 1, no wait)', () => {
    for (const p of [0, 0.1, 0.3, 0.5]) {
      for (const max of [1, 2, 8, 32]) {
        for (let seed = 0; seed < 6; seed += 1) {
          const n = 32;
          const positions = culpritPositions(n, Math.round(p * n), queueSeed(p, seed));
          const culprits = Array.from({ length: n }, (_, i) => positions.includes(i + 1));
          const sim = simulateDrain(culprits, max);
          const out = replayDrain(atOnce(culprits), { max, waitSeconds: 0, parallel: 1 }, 60);
          expect({ gateRuns: out.gateRuns, trains: out.trains, landed: out.landed, failed: out.failed }).toEqual({
            gateRuns: sim.gateRuns,
            trains: sim.trains,
            landed: sim.landed.length,
            failed: sim.failed.length,
          });
          expect(out.abandoned).toBe(0);
        }
      }
    }
  });

  it('with the evidence rule from no history, spends exactly the gate runs of simulateDrain with a new gate (its culprits confirmed by re-runs)', () => {
    for (const p of [0.1, 0.3]) {
      for (const max of [1, 8, 32]) {
        for (let seed = 0; seed < 6; seed += 1) {
          const n = 32;
          const positions = culpritPositions(n, Math.round(p * n), queueSeed(p, seed));
          const culprits = Array.from({ length: n }, (_, i) => positions.includes(i + 1));
          const sim = simulateDrain(culprits, max, newDeterministicGate());
          const flaky = { rule: 'evidence' as const, threshold: 0.99, history: { passed: 0, flakes: 0 } };
          const out = replayDrain(atOnce(culprits), { max, waitSeconds: 0, parallel: 1 }, 60, flaky);
          expect({ gateRuns: out.gateRuns, failed: out.failed }).toEqual({ gateRuns: sim.gateRuns, failed: sim.failed.length });
          // More runs than with a gate known deterministic, and each takes the gate's time.
          const known = replayDrain(atOnce(culprits), { max, waitSeconds: 0, parallel: 1 }, 60);
          if (positions.length) expect(out.gateRuns).toBeGreaterThan(known.gateRuns);
          expect(out.end - known.end).toBe((out.gateRuns - known.gateRuns) * 60);
        }
      }
    }
  });

  it('times a serial drain: each train takes the gate time, a cached verdict none', () => {
    // culpritSafety's queue: 8 jobs, culprits 2 and 5, 10 gate runs in simulateDrain.
    const culprits = [false, true, false, false, true, false, false, false];
    const out = replayDrain(atOnce(culprits), { max: 8, waitSeconds: 0, parallel: 1 }, 100);
    expect(out.gateRuns).toBe(10);
    expect(out.end).toBe(1000);
    expect(out.timesToLand).toHaveLength(6);
  });

  it('with batch.waitSeconds, a lone job waits for company: a trickle rides in pairs instead of alone', () => {
    const trickle = Array.from({ length: 8 }, (_, i) => ({ submitted: i * 60, culprit: false }));
    const alone = replayDrain(trickle, { max: 8, waitSeconds: 0, parallel: 1 }, 30);
    const waiting = replayDrain(trickle, { max: 8, waitSeconds: 300, parallel: 1 }, 30);
    expect(alone).toMatchObject({ trains: 8, gateRuns: 8, landed: 8 });
    expect(waiting).toMatchObject({ trains: 4, gateRuns: 4, landed: 8 });
    // The first of each pair waited 60 s for the second: time to land grows by that much.
    expect(Math.max(...waiting.timesToLand)).toBe(90);
    expect(Math.max(...alone.timesToLand)).toBe(30);
  });

  it('with batch.parallel and no culprit, trains gate together: the same gate runs, a shorter time to land', () => {
    const burst = atOnce(Array.from({ length: 16 }, () => false));
    const serial = replayDrain(burst, { max: 2, waitSeconds: 0, parallel: 1 }, 100);
    const parallel = replayDrain(burst, { max: 2, waitSeconds: 0, parallel: 4 }, 100);
    expect(serial).toMatchObject({ gateRuns: 8, trains: 8, landed: 16, abandoned: 0, end: 800 });
    expect(parallel).toMatchObject({ gateRuns: 8, trains: 8, landed: 16, abandoned: 0, end: 200 });
    expect(median(parallel.timesToLand)).toBeLessThan(median(serial.timesToLand) / 2);
  });

  it('with batch.parallel, the trains behind one that does not land are abandoned and planned again', () => {
    const culprits = Array.from({ length: 16 }, (_, i) => i + 1 === 3);
    const serial = replayDrain(atOnce(culprits), { max: 2, waitSeconds: 0, parallel: 1 }, 100);
    const parallel = replayDrain(atOnce(culprits), { max: 2, waitSeconds: 0, parallel: 4 }, 100);
    expect(serial.abandoned).toBe(0);
    // Train [3,4] fails while [5,6], [7,8] gate behind it: both abandoned, their gate runs wasted.
    expect(parallel.abandoned).toBeGreaterThanOrEqual(2);
    expect(parallel.gateRuns).toBeGreaterThan(serial.gateRuns);
    expect({ landed: parallel.landed, failed: parallel.failed }).toEqual({ landed: 15, failed: 1 });
    expect(parallel.end).toBeLessThan(serial.end);
  });

  it('under every setting, fails exactly the culprits and lands every other job once, whatever the arrivals', () => {
    for (let seed = 0; seed < 12; seed += 1) {
      const random = prng(seed + 1);
      let at = 0;
      const jobs = Array.from({ length: 24 }, () => {
        at += Math.floor(random() * 200);
        return { submitted: at, culprit: random() < 0.25 };
      });
      for (const max of [1, 3, 8]) {
        for (const parallel of [1, 2, 4]) {
          for (const waitSeconds of [0, 90]) {
            const out = replayDrain(jobs, { max, waitSeconds, parallel }, 60);
            const culprits = jobs.filter((job) => job.culprit).length;
            expect({ landed: out.landed, failed: out.failed }).toEqual({ landed: jobs.length - culprits, failed: culprits });
            expect(out.timesToLand.every((t) => t >= 0)).toBe(true);
            if (parallel === 1) expect(out.abandoned).toBe(0);
          }
        }
      }
    }
  });
});

describe('replayDrain with flakes', () => {
  const evidence = { rule: 'evidence' as const, threshold: 0.99, history: { passed: 0, flakes: 0 } };
  /** 64 jobs, one a minute, round(p x 64) culprits at seeded positions. */
  const queue = (p: number, seed: number) => {
    const positions = culpritPositions(64, Math.round(p * 64), queueSeed(p, seed));
    return Array.from({ length: 64 }, (_, i) => ({ submitted: i * 60, culprit: positions.includes(i + 1) }));
  };

  it('a rate of 0 replays a deterministic gate; one seed gives one replay; flakes eject good jobs under no rule, not under the evidence rule', () => {
    const setting = { max: 4, waitSeconds: 0, parallel: 2 };
    const jobs = queue(0.1, 1);
    expect(replayDrain(jobs, setting, 60, evidence, { rate: 0, clearing: true, seed: 3 })).toEqual(replayDrain(jobs, setting, 60, evidence));
    const flakes = { rate: 0.15, clearing: false, seed: 3 };
    expect(replayDrain(jobs, setting, 60, evidence, flakes)).toEqual(replayDrain(jobs, setting, 60, evidence, flakes));
    let noRule = 0;
    let byEvidence = 0;
    for (let seed = 1; seed <= 8; seed += 1) {
      const out = replayDrain(jobs, setting, 60, null, { ...flakes, seed });
      noRule += out.ejected;
      byEvidence += replayDrain(jobs, setting, 60, evidence, { ...flakes, seed }).ejected;
      // Whatever flakes, every culprit fails.
      expect(out.failed - out.ejected).toBe(jobs.filter((job) => job.culprit).length);
    }
    expect(noRule).toBeGreaterThan(8);
    expect(byEvidence).toBeLessThan(noRule / 4);
  });

  it('optimistic clearing: a failed head whose train behind passed lands with it, so flakes cost fewer runs; never a culprit; nothing at parallel 1', () => {
    let runs = { off: 0, on: 0 };
    let cleared = 0;
    for (const p of [0, 0.1]) {
      for (let seed = 1; seed <= 8; seed += 1) {
        const jobs = queue(p, seed);
        const culprits = jobs.filter((job) => job.culprit).length;
        const flakes = { rate: 0.1, clearing: false, seed };
        const setting = { max: 1, waitSeconds: 0, parallel: 2 };
        const off = replayDrain(jobs, setting, 60, evidence, flakes);
        const on = replayDrain(jobs, setting, 60, evidence, { ...flakes, clearing: true });
        runs = { off: runs.off + off.gateRuns, on: runs.on + on.gateRuns };
        cleared += on.cleared;
        expect(off.cleared).toBe(0);
        expect(on.failed - on.ejected).toBe(culprits);
        expect(on.landed + on.failed).toBe(jobs.length);
        const serial = { ...setting, parallel: 1 };
        expect(replayDrain(jobs, serial, 60, evidence, { ...flakes, clearing: true })).toEqual(replayDrain(jobs, serial, 60, evidence, flakes));
      }
    }
    expect(cleared).toBeGreaterThan(10);
    expect(runs.on).toBeLessThan(runs.off);
  });
});
