// `land cancel` and `land retry`: changes a user asks for, apart from what the drainer settles.
import { LandError } from '../errors.js';
import type { QueueStore, JobRecord, JournalEntry } from '../store/index.js';
import { assertSafeId, TERMINAL_STATES } from '../store/index.js';
import { cancelChange, reopenChange, stopRequestChange } from './changes.js';
import { reopenedFrom, type ReopenedFrom } from './reopen.js';
import { planRetry, type RetryProblem, type RetryRequest, type RetrySkip } from './retryPlan.js';
import { applyChangesLocked } from './transition.js';
import { foldJournal, prunedError } from './rebuild.js';
import { jobsOfBranchLocked, syncIndexLocked } from './activeSet.js';

/**
 * The records a retry plan needs: the named jobs and every job of their branches (index and branch
 * lists). `--all-failed` looks at every failed job ever recorded, so it reads every record.
 */
function retryCandidatesLocked(store: QueueStore, request: RetryRequest): JobRecord[] {
  if (request.kind === 'all_failed') return store.listJobs().jobs;
  const sync = syncIndexLocked(store);
  const jobs = new Map<string, JobRecord>();
  for (const id of new Set(request.ids)) {
    const read = store.readJobOrProblem(id);
    if (!read?.ok) continue;
    jobs.set(id, read.job);
    for (const other of jobsOfBranchLocked(store, sync, read.job.branch)) jobs.set(other.id, other);
  }
  return [...jobs.values()];
}

/**
 * One job's record. A record file that is gone is folded from the journal (read, not written: the
 * next change of the job writes it back, transition.ts), so `land show` and `land why` of a job
 * whose record was deleted still answer; a job the journal never named is `not_found`.
 */
export function readJobOrThrow(store: QueueStore, id: string): JobRecord {
  assertSafeId(id);
  const job = store.readJob(id);
  if (job) return job;
  const { entries } = store.hasJournal() ? store.readJournalOf(id) : { entries: [] };
  if (!entries.length) throw new LandError('not_found', `no job ${id}`, { hint: 'see `land status --all` for job ids' });
  const fold = foldJournal(id, entries);
  if (!fold.ok && fold.pruned) return prunedStory(id, entries);
  if (!fold.ok) throw new LandError('corrupt', `job record ${id}.json is missing and the journal cannot rebuild it: ${fold.problem}`);
  return fold.job;
}

/**
 * A job `land gc` pruned, read back from its journal lines: the finished record this clone saw (so
 * `land why` and `land show` still tell its story); a clone that last saw it queued or running
 * (it was away when the job finished) has no story to tell: no such job (exit 4).
 */
function prunedStory(id: string, entries: readonly JournalEntry[]): JobRecord {
  const fold = foldJournal(
    id,
    entries.filter((entry) => entry.event !== 'pruned'),
  );
  if (fold.ok && TERMINAL_STATES.includes(fold.job.state)) return fold.job;
  throw prunedError(id);
}

export type CancelOutcome = { kind: 'canceled'; job: JobRecord } | { kind: 'stop_requested'; job: JobRecord };

export async function cancelJob(store: QueueStore, id: string, by: string): Promise<CancelOutcome> {
  assertSafeId(id);
  return store.withQueueLock((): CancelOutcome => {
    const job = readJobOrThrow(store, id);
    switch (job.state) {
      case 'queued': {
        const [done] = applyChangesLocked(store, [cancelChange(id, by)]);
        return { kind: 'canceled', job: done as JobRecord };
      }
      case 'in_progress': {
        const [done] = applyChangesLocked(store, [stopRequestChange(id, { kind: 'cancel', by, forJob: null })]);
        return { kind: 'stop_requested', job: done as JobRecord };
      }
      case 'landed':
      case 'failed':
      case 'canceled':
        throw new LandError('state', `job ${id} is already ${job.state}; nothing to cancel`);
      case 'uncertain':
        throw new LandError('state', `job ${id} is uncertain: its outcome is not decided`, {
          hint: `see \`land show ${id}\`; decide it with \`land reconcile --resolve ${id} canceled\``,
        });
      default: {
        const never: never = job.state;
        throw new Error(`unknown state ${String(never)}`);
      }
    }
  });
}

/** One error for every problem found: exit 4 if an id is unknown, else 5; each id named. */
function refusal(problems: readonly RetryProblem[], asked: number): LandError {
  const code = problems.some((p) => p.code === 'not_found') ? 'not_found' : 'state';
  const hint = code === 'not_found' ? 'see `land status --all` for job ids' : undefined;
  const suffix = asked > 1 ? '; none of the jobs was requeued' : '';
  if (problems.length === 1) return new LandError(code, `${problems[0]?.message ?? ''}${suffix}`, { hint });
  const ids = problems.map((p) => p.id).join(', ');
  return new LandError(code, `${problems.length} jobs cannot be retried (${ids})${suffix}`, { details: problems.map((p) => p.message), hint });
}

export interface RetryOutcome {
  requeued: { job: JobRecord; previous: ReopenedFrom }[];
  skipped: RetrySkip[];
}

/**
 * `land retry`: reopens failed (or canceled) jobs under one hold of the queue lock. Every named id
 * is checked first; if any cannot be retried, nothing changes and the error names each one.
 */
export async function retryJobs(store: QueueStore, request: RetryRequest, target: string, by: string): Promise<RetryOutcome> {
  if (request.kind === 'ids') {
    if (!request.ids.length) throw new LandError('usage', 'name the jobs to retry, or use --all-failed');
    for (const id of request.ids) assertSafeId(id);
  }
  return store.withQueueLock((): RetryOutcome => {
    const jobs = retryCandidatesLocked(store, request);
    // A named record that does not parse is reported as corrupt, not as missing.
    if (request.kind === 'ids') for (const id of request.ids) if (!jobs.some((job) => job.id === id)) store.readJob(id);
    const plan = planRetry(jobs, request, target);
    if (plan.kind === 'refused') throw refusal(plan.problems, request.kind === 'ids' ? new Set(request.ids).size : 0);
    const requeued = plan.jobs.map((job) => ({
      job: applyChangesLocked(store, [reopenChange(job, 'retried', by)])[0] as JobRecord,
      previous: reopenedFrom(job),
    }));
    return {
      requeued,
      skipped: plan.skipped,
    };
  });
}
