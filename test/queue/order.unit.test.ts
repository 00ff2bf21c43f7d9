// Landing order and id allocation: pure functions over records.
import { describe, expect, it } from 'vitest';
import { compareLandingOrder, displayOrder, newBatchId, newJobRecord, nextJobId, runnableJobs } from '../../lib/queue/index.js';
import type { JobRecord } from '../../lib/store/index.js';

const TIP = 'a'.repeat(40);

function job(id: string, over: Partial<JobRecord> = {}): JobRecord {
  return { ...newJobRecord({ id, branch: `b-${id}`, tip: TIP, title: id, submitter: 't', urgent: false }), ...over };
}

describe('landing order', () => {
  it('puts urgent jobs first, then requeued ones, then the rest by order key', () => {
    const jobs = [
      job('j-20260101-0001'),
      job('j-20260101-0002', { requeued: true }),
      job('j-20260101-0003', { priority: 'urgent' }),
      job('j-20260101-0004'),
      job('j-20260101-0005', { priority: 'urgent' }),
      job('j-20260101-0006', { requeued: true, order: 'j-20260101-0000' }),
      job('j-20260101-0007', { order: 'j-20260100-9999' }),
    ];
    const ids = runnableJobs(jobs).map((j) => j.id);
    expect(ids).toEqual(['j-20260101-0003', 'j-20260101-0005', 'j-20260101-0006', 'j-20260101-0002', 'j-20260101-0007', 'j-20260101-0001', 'j-20260101-0004']);
    // The input order does not matter.
    expect(runnableJobs([...jobs].reverse()).map((j) => j.id)).toEqual(ids);
  });

  it('breaks a tie on the order key by id, and runnableJobs keeps only queued jobs', () => {
    const a = job('j-20260101-0001', { order: 'same' });
    const b = job('j-20260101-0002', { order: 'same' });
    expect(compareLandingOrder(a, b)).toBeLessThan(0);
    expect(compareLandingOrder(b, a)).toBeGreaterThan(0);
    const states = (['in_progress', 'landed', 'failed', 'canceled'] as const).map((state, i) => job(`j-20260101-001${i}`, { state }));
    expect(runnableJobs([...states, a]).map((j) => j.id)).toEqual([a.id]);
  });

  it('displays running jobs first, then the queue in landing order, then finished ones newest first', () => {
    const jobs = [
      job('j-20260101-0001', { state: 'landed' }),
      job('j-20260101-0002', { state: 'in_progress' }),
      job('j-20260101-0003'),
      job('j-20260101-0004', { state: 'failed' }),
      job('j-20260101-0005', { priority: 'urgent' }),
    ];
    expect(displayOrder(jobs).map((j) => j.id)).toEqual(['j-20260101-0002', 'j-20260101-0005', 'j-20260101-0003', 'j-20260101-0004', 'j-20260101-0001']);
  });
});

describe('ids', () => {
  const day = new Date('2026-03-04T23:59:59Z');

  it('nextJobId counts up from the highest id of the same UTC day', () => {
    expect(nextJobId([], day)).toBe('j-20260304-0001');
    expect(nextJobId(['j-20260304-0007', 'j-20260304-0002', 'j-20260303-0042', 'garbage', 'j-20260304-x'], day)).toBe('j-20260304-0008');
    expect(nextJobId(['j-20260303-0042'], day)).toBe('j-20260304-0001');
    expect(nextJobId(['j-20260304-0001'], new Date('2026-03-05T00:00:00Z'))).toBe('j-20260305-0001');
    const id = nextJobId(['j-20260304-0099'], day);
    expect(id).toMatch(/^[a-z0-9-]+$/);
    expect(id > 'j-20260304-0099').toBe(true);
  });

  it('newBatchId is a valid, distinct, day-stamped id', () => {
    const ids = new Set(Array.from({ length: 50 }, () => newBatchId(day)));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^b-20260304-235959-[0-9a-f]{6}$/);
  });
});
