// The push's leases on job refs and the seq ref (lib/store/remote/refLeases.ts): only a new
// submission expects a job ref not to exist; a job whose ref is gone is refused; seq only moves on.
import { describe, expect, it } from 'vitest';
import { LandError } from '../../../lib/errors.js';
import type { JournalEntry } from '../../../lib/store/index.js';
import { jobLease, nextSeqLast } from '../../../lib/store/remote/refLeases.js';

const line = (event: string): JournalEntry => ({
  at: '2026-12-02T00:00:00Z',
  kind: 'transition',
  job: 'j-20261202-0003',
  from: null,
  to: 'queued',
  event,
  detail: {},
});
const none = { misfits: new Map() };

describe('jobLease', () => {
  it('a known job leases on the commit fetched, whatever the change', () => {
    const state = { jobs: { 'j-20261202-0003': 'c1' } };
    expect(jobLease('j-20261202-0003', [line('canceled')], state, none, 'origin')).toEqual({ created: false, expect: 'c1', parent: 'c1' });
    // Even a line that says submitted: the ref exists, so the push must find it as fetched.
    expect(jobLease('j-20261202-0003', [line('submitted')], state, none, 'origin')).toEqual({ created: false, expect: 'c1', parent: 'c1' });
  });

  it('only a new submission expects the ref not to exist', () => {
    expect(jobLease('j-20261202-0003', [line('submitted')], { jobs: {} }, none, 'origin')).toEqual({ created: true, expect: null, parent: null });
  });

  it('a job whose ref is gone (pruned by land gc) is refused, never recreated', () => {
    for (const event of ['canceled', 'train_started', 'rebuilt']) {
      let thrown: unknown;
      try {
        jobLease('j-20261202-0003', [line(event)], { jobs: {} }, none, 'origin');
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(LandError);
      expect((thrown as LandError).code).toBe('not_found');
      expect((thrown as LandError).message).toContain('pruned by land gc');
    }
  });

  it('a ref that names no commit is replaced, leased on what it names', () => {
    const misfits = new Map([['j-20261202-0003', { oid: 'blob1', type: 'blob' as const }]]);
    expect(jobLease('j-20261202-0003', [line('canceled')], { jobs: {} }, { misfits }, 'origin')).toEqual({ created: false, expect: 'blob1', parent: null });
  });
});

describe('nextSeqLast', () => {
  it('moves to the highest id created, by day then number', () => {
    expect(nextSeqLast([], 'j-20261202-0009')).toBeNull();
    expect(nextSeqLast(['j-20261202-0011', 'j-20261202-0010'], 'j-20261202-0009')).toBe('j-20261202-0011');
    expect(nextSeqLast(['j-20261202-10000', 'j-20261202-9999'], null)).toBe('j-20261202-10000');
    expect(nextSeqLast(['j-20261203-0001'], 'j-20261202-0042')).toBe('j-20261203-0001');
  });

  it('never moves back, nor gives an id out twice', () => {
    expect(() => nextSeqLast(['j-20261202-0009'], 'j-20261202-0010')).toThrow(/already given out/);
    expect(() => nextSeqLast(['j-20261202-0010'], 'j-20261202-0010')).toThrow(/already given out/);
    expect(() => nextSeqLast(['j-20261202-0011', 'j-20261202-0004'], 'j-20261202-0010')).toThrow(/j-20261202-0004/);
  });
});
