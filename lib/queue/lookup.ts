// Which job a command means (`land why|show|log|repro|cancel|retry [job]`): a job id, a branch
// name (its latest job, as `gh pr view <branch>` finds a pull request), or nothing (the checked-out
// branch's latest job). The decisions are pure (classifyJobArg, latestJob, unknownNameError); the
// lookup reads the branch's job list and, for a name that is neither, the names to suggest. A
// branch name is only ever compared and hashed (the branch list's file name): never run.
import { LandError } from '../errors.js';
import { currentBranch, isValidBranchName, listRefs } from '../git/index.js';
import { nearestKey } from '../config/suggest.js';
import { assertSafeId, type JobRecord, type QueueStore } from '../store/index.js';
import { indexNow, recentFinishedJobs } from './activeSet.js';

/** A job id as land gives them out: `j-YYYYMMDD-N`. Such an argument is always an id, never a branch. */
const ID_LOOK = /^j-\d{8}-\d+$/;

export type JobArg = { kind: 'id'; id: string } | { kind: 'branch'; branch: string } | { kind: 'current' };

/** What an argument names: an id-looking argument is an id; anything else a branch; none the checkout's branch. */
export function classifyJobArg(arg: string | undefined): JobArg {
  if (arg === undefined || arg === '') return { kind: 'current' };
  return ID_LOOK.test(arg) ? { kind: 'id', id: arg } : { kind: 'branch', branch: arg };
}

/** A branch's latest job: the last submitted (ids grow with submission; the queued time breaks ties of odd ids). */
export function latestJob(jobs: readonly JobRecord[]): JobRecord | null {
  let latest: JobRecord | null = null;
  for (const job of jobs) {
    if (!latest) latest = job;
    else if (job.timestamps.queued > latest.timestamps.queued) latest = job;
    else if (job.timestamps.queued === latest.timestamps.queued && job.id > latest.id) latest = job;
  }
  return latest;
}

/** A name that is neither a job id nor a branch with jobs: one line, with the nearest name if one is close. */
export function unknownNameError(name: string, known: readonly string[]): LandError {
  // A branch of this clone without jobs (never submitted, or its jobs pruned by land gc): not a typo.
  if (known.includes(name)) {
    return new LandError('not_found', `the branch ${JSON.stringify(name)} has no job in the queue`, {
      hint: `land submit ${name} queues it; land status --all lists the jobs`,
    });
  }
  const near = nearestKey(name, known);
  return new LandError('not_found', `no job or branch with jobs named ${JSON.stringify(name)}${near ? `; did you mean ${near}?` : ''}`, {
    hint: 'see `land status --all` for job ids and branches',
  });
}

/**
 * Every job of `branch`, lock-free: its branch list and the active jobs the index names for it;
 * a full scan of the records when the branch lists are gone or unreadable (they are rebuilt by the
 * next command that holds the queue lock; a lookup changes nothing).
 */
function jobsOfBranch(store: QueueStore, branch: string): JobRecord[] {
  const listed = store.hasBranchLists() ? store.branchJobIds(branch) : null;
  const now = listed === null ? null : indexNow(store);
  if (listed === null || now === null) return store.listJobs().jobs.filter((job) => job.branch === branch);
  // The journal's lines after the written index (a fetch of a remote queue's records) name jobs its branch lists lack.
  const ids = new Set([...listed, ...(now.behind.get(branch) ?? [])]);
  for (const [id, entry] of Object.entries(now.index.active)) if (entry.branch === branch) ids.add(id);
  return [...ids].flatMap((id) => {
    const read = store.readJobOrProblem(id);
    return read?.ok && read.job.branch === branch ? [read.job] : [];
  });
}

/** Names a user may have meant: branches with active or recent jobs, and this clone's local branches. */
async function knownNames(store: QueueStore, cwd: string): Promise<string[]> {
  const names = new Set<string>();
  const now = indexNow(store);
  for (const entry of Object.values(now?.index.active ?? {})) names.add(entry.branch);
  for (const branch of now?.behind.keys() ?? []) names.add(branch);
  for (const job of recentFinishedJobs(store, now?.index ?? null)) names.add(job.branch);
  for (const ref of (await listRefs(cwd, 'refs/heads/')).keys()) names.add(ref.slice('refs/heads/'.length));
  return [...names];
}

/** The job a command was given; `how` says how it was found (for a note naming the job). */
export interface FoundJob {
  id: string;
  how: 'id' | 'branch' | 'current';
  branch: string | null;
}

/** Whether the store knows a job by this exact id (its record, or journal lines to rebuild it from). */
function knowsId(store: QueueStore, id: string): boolean {
  if (store.jobExists(id)) return true;
  return store.hasJournal() && store.readJournalOf(id).entries.length > 0;
}

/**
 * The job `arg` names. An id is returned as given (the command reads it, and says when there is
 * no such job). A branch without jobs is also tried as an id (ids of other shapes, from tests or
 * older versions), then refused: exit 4 with a did-you-mean, or exit 2 for a name git would not
 * take as a branch (`../x`). No argument: the checked-out
 * branch's latest job; a detached HEAD is a usage error (exit 2), a branch without jobs exit 4.
 */
export async function findJob(store: QueueStore, cwd: string, arg: string | undefined): Promise<FoundJob> {
  const wanted = classifyJobArg(arg);
  switch (wanted.kind) {
    case 'id':
      return { id: wanted.id, how: 'id', branch: null };
    case 'current': {
      const branch = await currentBranch(cwd);
      if (branch === null) {
        throw new LandError('usage', 'no job named, and HEAD is detached: there is no checked-out branch to look up', {
          hint: 'name a job id or a branch (see land status --all)',
        });
      }
      const latest = latestJob(jobsOfBranch(store, branch));
      if (!latest) throw new LandError('not_found', `the checked-out branch ${JSON.stringify(branch)} has no job`, { hint: `land submit ${branch} queues it` });
      return { id: latest.id, how: 'current', branch };
    }
    case 'branch': {
      const latest = latestJob(jobsOfBranch(store, wanted.branch));
      if (latest) return { id: latest.id, how: 'branch', branch: wanted.branch };
      if (isSafe(wanted.branch) && knowsId(store, wanted.branch)) return { id: wanted.branch, how: 'id', branch: null };
      if (!(await isValidBranchName(cwd, wanted.branch))) {
        throw new LandError('usage', `${JSON.stringify(wanted.branch)} is neither a job id (j-YYYYMMDD-N) nor a branch name git accepts`);
      }
      throw unknownNameError(wanted.branch, await knownNames(store, cwd));
    }
    default: {
      const never: never = wanted;
      return never;
    }
  }
}

function isSafe(id: string): boolean {
  try {
    assertSafeId(id);
    return true;
  } catch {
    return false;
  }
}
