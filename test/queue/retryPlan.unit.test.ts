// Which jobs `land retry` reopens: a pure plan, all problems reported at once.
import { describe, expect, it } from 'vitest';
import { newJobRecord, planRetry } from '../../lib/queue/index.js';
import type { JobRecord } from '../../lib/store/index.js';

function job(n: number, branch: string, state: JobRecord['state'], target = 'main'): JobRecord {
  const id = `j-20260101-${String(n).padStart(4, '0')}`;
  return { ...newJobRecord({ id, branch, tip: String(n % 10).repeat(40), title: branch, submitter: 't', urgent: false, target }), state };
}

describe('planRetry', () => {
  const jobs = [
    job(1, 'a', 'failed'),
    job(2, 'b', 'failed'),
    job(3, 'b', 'failed'), // b again, submitted later: supersedes job 2
    job(4, 'c', 'failed'),
    job(5, 'c', 'queued'), // c has a live job
    job(6, 'd', 'canceled'),
    job(7, 'e', 'landed'),
    job(8, 'f', 'failed', 'release'), // another target
    job(9, 'g', 'failed'),
    job(10, 'g', 'canceled'), // g was given up on later: the failed job 9 stays failed
    (({ target: _t, ...legacy }) => legacy as JobRecord)(job(11, 'h', 'failed')), // written before jobs named a target
  ];
  const ids = (plan: ReturnType<typeof planRetry>) =>
    plan.kind === 'reopen' ? plan.jobs.map((j) => j.id.slice(-2)) : plan.problems.map((p) => p.id.slice(-2));

  it("--all-failed takes this target's newest failed job of each branch, and says why it skipped the others", () => {
    const plan = planRetry(jobs, { kind: 'all_failed' }, 'main');
    expect(ids(plan)).toEqual(['01', '03', '11']);
    expect(plan.kind === 'reopen' && plan.skipped.map((s) => [s.job.id.slice(-2), s.why])).toEqual([
      ['02', 'superseded by the newer job j-20260101-0003 (failed) of the same branch'],
      ['04', 'branch already has job j-20260101-0005 queued'],
      ['09', 'superseded by the newer job j-20260101-0010 (canceled) of the same branch'],
    ]);
    // A record without a target belongs to the target asked about, as in the drain.
    expect(ids(planRetry(jobs, { kind: 'all_failed' }, 'release'))).toEqual(['08', '11']);
  });

  it('named ids: failed and canceled ones are reopened, an older job of a branch too when named', () => {
    expect(ids(planRetry(jobs, { kind: 'ids', ids: ['j-20260101-0006', 'j-20260101-0002', 'j-20260101-0002'] }, 'main'))).toEqual(['06', '02']);
  });

  it('named ids: reports every problem at once, unknown ids as not_found', () => {
    const plan = planRetry(
      jobs,
      {
        kind: 'ids',
        ids: ['j-20260101-0001', 'j-20260101-0099', 'j-20260101-0005', 'j-20260101-0007', 'j-20260101-0004', 'j-20260101-0002', 'j-20260101-0003'],
      },
      'main',
    );
    expect(plan.kind).toBe('refused');
    expect(plan.kind === 'refused' && plan.problems.map((p) => [p.id.slice(-2), p.code, p.message])).toEqual([
      ['99', 'not_found', 'no job j-20260101-0099'],
      ['05', 'state', 'job j-20260101-0005 is queued; only a failed or canceled job can be retried'],
      ['07', 'state', 'job j-20260101-0007 is landed; only a failed or canceled job can be retried'],
      ['04', 'state', `job j-20260101-0004: its branch already has job j-20260101-0005 queued (at ${'5'.repeat(12)}); retrying would queue the branch twice`],
      ['03', 'state', 'jobs j-20260101-0002 and j-20260101-0003 are the same branch; retry one of them'],
    ]);
  });
});
