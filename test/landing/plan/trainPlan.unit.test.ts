import { describe, expect, it } from 'vitest';
import { newJobRecord } from '../../../lib/queue/index.js';
import { runnableJobs } from '../../../lib/queue/index.js';
import { prng } from '../../../bench/sweep.js';
import { planTrain, splitFailed, splitFor, startsBatch } from '../../../lib/landing/plan/trainPlan.js';
import type { JobRecord } from '../../../lib/store/index.js';

const TIP = 'a'.repeat(40);

function job(n: number, extra: Partial<JobRecord> = {}): JobRecord {
  const base = newJobRecord({ id: `j-20261130-${String(n).padStart(4, '0')}`, branch: `b${n}`, tip: TIP, title: `b${n}`, submitter: 't', urgent: false });
  return { ...base, ...extra };
}

const half = (n: number, batch: string, attempt: number, reason = 'bisected') =>
  job(n, { requeued: true, reason, batch: { id: batch, members: [], attempt, index: 0 } });

describe('planTrain', () => {
  it('takes the first window jobs of a fresh queue', () => {
    const queue = runnableJobs([job(1), job(2), job(3)]);
    expect(planTrain(queue, 2).map((j) => j.id)).toEqual([job(1).id, job(2).id]);
  });

  it('lets the deepest bisection half of a batch ride alone', () => {
    const queue = runnableJobs([half(5, 'b-x', 2), half(6, 'b-x', 2), half(3, 'b-x', 3), half(4, 'b-x', 3), job(9)]);
    expect(planTrain(queue, 8).map((j) => j.id)).toEqual([job(3).id, job(4).id]);
  });

  it('re-admits the rest of a batch through the window once the culprit is found, fresh jobs filling the train', () => {
    const queue = runnableJobs([half(2, 'b-x', 4, 'culprit_found'), half(3, 'b-x', 3, 'culprit_found'), half(5, 'b-x', 2, 'culprit_found'), job(9), job(10)]);
    expect(planTrain(queue, 2).map((j) => j.id)).toEqual([job(2).id, job(3).id]);
    expect(planTrain(queue, 4).map((j) => j.id)).toEqual([job(2).id, job(3).id, job(5).id, job(9).id]);
    expect(startsBatch(queue[0])).toBe(true);
  });

  it('lets a batch requeued whole ride together, whatever the window, in its own batch', () => {
    const queue = runnableJobs([half(2, 'b-x', 1, 'cas_lost'), half(3, 'b-x', 1, 'cas_lost'), job(9)]);
    expect(planTrain(queue, 1).map((j) => j.id)).toEqual([job(2).id, job(3).id]);
    expect(startsBatch(queue[0])).toBe(false);
    expect(startsBatch(job(9))).toBe(true);
  });

  it("never puts another batch's halves on an urgent train", () => {
    const urgent = job(10, { priority: 'urgent' });
    const queue = runnableJobs([half(5, 'b-x', 2), half(6, 'b-x', 2), job(9), urgent]);
    expect(planTrain(queue, 8).map((j) => j.id)).toEqual([urgent.id, job(9).id]);
  });

  it('keeps an urgent job that was requeued with its batch', () => {
    const urgent = job(10, { priority: 'urgent', requeued: true, reason: 'cas_lost', batch: { id: 'b-y', members: [], attempt: 1, index: 0 } });
    expect(planTrain(runnableJobs([urgent]), 4).map((j) => j.id)).toEqual([urgent.id]);
  });
});

describe('splitFailed and splitFor', () => {
  it('halves a failed train at a low rate, the first half taking the extra member', () => {
    expect(splitFailed([1, 2, 3, 4, 5], 0.01)).toEqual({ first: [1, 2, 3], second: [4, 5] });
    expect(splitFailed([1, 2, 3, 4, 5, 6, 7, 8], 0.01)).toEqual({ first: [1, 2, 3, 4], second: [5, 6, 7, 8] });
    expect(splitFor(16, 0.01)).toBe(8);
    expect(splitFor(2, 0.3)).toBe(1);
  });

  it('rides a shorter first part as the expected rate grows (it passes more often; the rest then fails from the cache)', () => {
    expect(splitFor(8, 1 / 7)).toBe(3);
    expect(splitFor(8, 0.2)).toBe(2);
    expect(splitFor(16, 0.3)).toBe(2);
    expect(splitFor(8, 0.45)).toBe(1);
  });

  it('always leaves both parts non-empty', () => {
    for (let m = 2; m <= 40; m += 1)
      for (const rate of [0, 0.001, 0.05, 0.15, 0.3, 0.6, 1]) {
        const size = splitFor(m, rate);
        expect(size).toBeGreaterThanOrEqual(1);
        expect(size).toBeLessThan(m);
      }
  });

  it('finds a culprit in fewer expected gate runs than halving (seeded groups of 8 that failed)', () => {
    const random = prng(7);
    for (const rate of [0.15, 0.2, 0.3]) {
      let ours = 0;
      let halves = 0;
      for (let i = 0; i < 4000; i += 1) {
        const group = Array.from({ length: 8 }, () => random() < rate);
        if (!group.includes(true)) continue;
        ours += isolationRuns(group, (m) => splitFor(m, rate));
        halves += isolationRuns(group, (m) => Math.ceil(m / 2));
      }
      expect(ours, `rate ${rate}`).toBeLessThan(halves);
    }
  });
});

/** Gate runs to isolate the first culprit of a failed group: a passing first part lands and the rest fails from the cache (no run). */
function isolationRuns(group: readonly boolean[], first: (m: number) => number): number {
  let runs = 0;
  let rest = group;
  while (rest.length > 1) {
    const a = first(rest.length);
    runs += 1;
    rest = rest.slice(0, a).includes(true) ? rest.slice(0, a) : rest.slice(a);
  }
  return runs;
}
