import { describe, expect, it } from 'vitest';
import { newJobRecord } from '../../../lib/queue/index.js';
import { runnableJobs } from '../../../lib/queue/index.js';
import { planTrain, splitFailed, startsBatch } from '../../../lib/landing/plan/trainPlan.js';
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

describe('splitFailed', () => {
  it('gives the first half the extra member', () => {
    expect(splitFailed([1, 2, 3, 4, 5])).toEqual({ first: [1, 2, 3], second: [4, 5] });
  });
});
