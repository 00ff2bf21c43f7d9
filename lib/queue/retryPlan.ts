// Which jobs `land retry` reopens: a pure plan over the job records, checked in full before any
// record changes (all or nothing).
import type { JobRecord } from '../store/index.js';
import { isReopenable } from './reopen.js';
import { jobTarget } from './submit.js';

export type RetryRequest = { kind: 'ids'; ids: readonly string[] } | { kind: 'all_failed' };

export interface RetryProblem {
  id: string;
  code: 'not_found' | 'state';
  message: string;
}

export interface RetrySkip {
  job: JobRecord;
  why: string;
}

export type RetryPlan =
  | { kind: 'reopen'; jobs: (JobRecord & { state: 'failed' | 'canceled' })[]; skipped: RetrySkip[] }
  | { kind: 'refused'; problems: RetryProblem[] };

const isLive = (job: JobRecord) => job.state === 'queued' || job.state === 'in_progress';

/**
 * Plans a retry. `jobs` is every readable record; `target` the target of this command, which
 * `--all-failed` keeps to, and which records written before jobs named a target belong to.
 *
 * Named ids: each must exist (else `not_found`), be failed or canceled, not share its branch with
 * a queued or running job, nor with another id of the same request (else `state`).
 * `--all-failed`: this target's failed jobs, except those a newer job of the same branch supersedes
 * (a live one, or any job submitted later): those are skipped with the reason, never refused.
 */
export function planRetry(jobs: readonly JobRecord[], request: RetryRequest, target: string): RetryPlan {
  const byId = new Map(jobs.map((job) => [job.id, job]));
  const sameBranch = (job: JobRecord) => (other: JobRecord) =>
    other.id !== job.id && other.branch === job.branch && jobTarget(other, target) === jobTarget(job, target);

  if (request.kind === 'all_failed') {
    const failed = jobs.filter((job) => job.state === 'failed' && jobTarget(job, target) === target);
    const plan: RetryPlan = { kind: 'reopen', jobs: [], skipped: [] };
    for (const job of failed) {
      if (!isReopenable(job)) continue;
      const live = jobs.find((other) => sameBranch(job)(other) && isLive(other));
      const newer = jobs.filter((other) => sameBranch(job)(other) && other.id > job.id).sort((a, b) => (a.id < b.id ? 1 : -1))[0];
      if (live) plan.skipped.push({ job, why: `branch already has job ${live.id} ${live.state === 'queued' ? 'queued' : 'riding a train'}` });
      else if (newer) plan.skipped.push({ job, why: `superseded by the newer job ${newer.id} (${newer.state}) of the same branch` });
      else plan.jobs.push(job);
    }
    return plan;
  }

  const problems: RetryProblem[] = [];
  const chosen: (JobRecord & { state: 'failed' | 'canceled' })[] = [];
  for (const id of new Set(request.ids)) {
    const job = byId.get(id);
    if (!job) {
      problems.push({ id, code: 'not_found', message: `no job ${id}` });
      continue;
    }
    if (!isReopenable(job)) {
      problems.push({ id, code: 'state', message: `job ${id} is ${job.state}; only a failed or canceled job can be retried` });
      continue;
    }
    const live = jobs.find((other) => sameBranch(job)(other) && isLive(other));
    if (live) {
      problems.push({
        id,
        code: 'state',
        message: `job ${id}: its branch already has job ${live.id} ${live.state === 'queued' ? 'queued' : 'riding a train'} (at ${live.tip.slice(0, 12)}); retrying would queue the branch twice`,
      });
      continue;
    }
    const twin = chosen.find((other) => sameBranch(job)(other));
    if (twin) {
      problems.push({ id, code: 'state', message: `jobs ${twin.id} and ${id} are the same branch; retry one of them` });
      continue;
    }
    chosen.push(job);
  }
  return problems.length ? { kind: 'refused', problems } : { kind: 'reopen', jobs: chosen, skipped: [] };
}
