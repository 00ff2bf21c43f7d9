// `land gc` under the queue lock (lib/store/local/prune.ts): the plan was made without the lock, so
// the jobs are read again, and a train goes only if none of its planned members was retried meanwhile.
import { describe, expect, it } from 'vitest';
import { stillPrunable, trainsOfPrunedJobs } from '../../lib/store/local/prune.js';
import type { JobRecord } from '../../lib/store/index.js';

const request = {
  jobs: ['a', 'b', 'c'],
  trains: ['t-ab', 't-c', 't-gone'],
  members: { 't-ab': ['a', 'b'], 't-c': ['c'], 't-gone': ['a', 'gone-before'] },
};

describe('trainsOfPrunedJobs', () => {
  it('keeps a train one of whose planned members is no longer pruned', () => {
    expect(trainsOfPrunedJobs(request, ['a', 'c'])).toEqual(['t-c', 't-gone']);
    expect(trainsOfPrunedJobs(request, ['a', 'b', 'c'])).toEqual(['t-ab', 't-c', 't-gone']);
    expect(trainsOfPrunedJobs(request, [])).toEqual([]);
  });
});

describe('stillPrunable', () => {
  it('drops a job retried since the plan, and the trains it rode', () => {
    const states: Record<string, string> = { a: 'landed', b: 'queued', c: 'failed' };
    const readJob = (id: string) => (states[id] ? ({ id, state: states[id] } as unknown as JobRecord) : null);
    expect(stillPrunable(request, readJob)).toEqual({ jobs: ['a', 'c'], trains: ['t-c', 't-gone'] });
  });
});
