import { describe, expect, it } from 'vitest';
import { probeHolds } from '../../../lib/landing/pipeline/probe.js';
import type { Next } from '../../../lib/landing/plan/settlement.js';
import type { JobRecord } from '../../../lib/store/index.js';

const jobs = (...ids: string[]) => ids.map((id) => ({ id }) as JobRecord);
const firstHalf = (...ids: string[]): Next => ({ next: 'first_half', members: jobs(...ids), attempt: 2, requeued: [] });
const publish: Next = { next: 'publish', commit: 'c0ffee' } as Next;
const done: Next = { next: 'done' } as Next;

describe('probeHolds: a probe is kept only when its assumption came true', () => {
  it('a `fails` probe: the head failed and split into exactly its part, in order', () => {
    const probe = { branch: 'fails' as const, forTrain: 't1', members: ['a', 'b'] };
    expect(probeHolds(probe, 't1', firstHalf('a', 'b'))).toBe(true);
    expect(probeHolds(probe, 't1', firstHalf('b', 'a'))).toBe(false);
    expect(probeHolds(probe, 't1', firstHalf('a'))).toBe(false);
    expect(probeHolds(probe, 't1', publish)).toBe(false);
    expect(probeHolds(probe, 't2', firstHalf('a', 'b'))).toBe(false);
  });

  it('a `passes` probe: the head landed (its commit is the target the part is built on)', () => {
    const probe = { branch: 'passes' as const, forTrain: 't1', members: ['c'] };
    expect(probeHolds(probe, 't1', publish)).toBe(true);
    expect(probeHolds(probe, 't1', firstHalf('c'))).toBe(false);
    expect(probeHolds(probe, 't1', done)).toBe(false);
    expect(probeHolds(probe, 't2', publish)).toBe(false);
  });

  it('a `past_lone` probe: the lone head was failed (its train past the culprit is the next train on the same target)', () => {
    const probe = { branch: 'past_lone' as const, forTrain: 't1', members: ['c', 'd'] };
    expect(probeHolds(probe, 't1', done, true)).toBe(true);
    expect(probeHolds(probe, 't1', done)).toBe(false);
    expect(probeHolds(probe, 't1', publish)).toBe(false);
    expect(probeHolds(probe, 't2', done, true)).toBe(false);
  });
});
