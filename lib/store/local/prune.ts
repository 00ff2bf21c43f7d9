// `land gc` in a state folder: the records of finished jobs and the logs of trains only they rode
// are removed. The journal keeps their lines (append-only history), metrics.jsonl its rows, the
// verdict cache its verdicts. Runs under the queue lock; a job that is no longer finished (retried
// since the plan was made) is left alone.
import { rmSync } from 'node:fs';
import { appendJsonLine, readJsonLines } from '../jsonl.js';
import type { StatePaths } from '../paths.js';
import type { PruneRequest } from '../queueKind.js';
import { asCountedJob, prunedJobOf, TERMINAL_STATES, type JobRecord, type JournalLine, type PrunedJob } from '../formats/index.js';

/** What `land gc` keeps of the records it prunes (formats/prunedJob.ts), read before they go; a corrupt or missing one is left out. */
export function prunedJobsOf(ids: readonly string[], readJob: (id: string) => JobRecord | null): PrunedJob[] {
  return ids.flatMap((id) => {
    try {
      const job = readJob(id);
      return job ? [prunedJobOf(job)] : [];
    } catch {
      return [];
    }
  });
}

/** Appends what gc keeps of the pruned jobs to a file of pruned jobs (a clone's own queue: pruned.jsonl). */
export function appendPrunedJobs(path: string, jobs: readonly PrunedJob[]): void {
  for (const job of jobs) appendJsonLine(path, job);
}

/** The pruned jobs of a file, those with a counted job's shape (jobShape.ts) as records for the counting readers. */
export function readPrunedJobsFile(path: string): JobRecord[] {
  return readJsonLines(path, (raw) => {
    const read = asCountedJob(raw);
    return read.ok ? read.job : null;
  }).rows;
}

/**
 * What of `request` may still be pruned, re-planned under the queue lock: the jobs still finished
 * (by `readJob`), and the trains none of whose planned members was retried since the plan was made.
 */
export function stillPrunable(request: PruneRequest, readJob: (id: string) => JobRecord | null): { jobs: string[]; trains: string[] } {
  const jobs = stillFinished(request, readJob);
  return { jobs, trains: trainsOfPrunedJobs(request, jobs) };
}

/** The trains of `request` whose members planned for pruning are all among `jobs` (still finished). */
export function trainsOfPrunedJobs(request: PruneRequest, jobs: readonly string[]): string[] {
  const planned = new Set(request.jobs);
  const finished = new Set(jobs);
  return request.trains.filter((train) => (request.members[train] ?? []).every((id) => !planned.has(id) || finished.has(id)));
}

/** The jobs of `request` still finished (by `readJob`), which may be pruned. */
export function stillFinished(request: Pick<PruneRequest, 'jobs'>, readJob: (id: string) => JobRecord | null): string[] {
  return request.jobs.filter((id) => {
    try {
      const job = readJob(id);
      return job !== null && TERMINAL_STATES.includes(job.state);
    } catch {
      return false; // a corrupt record is not gc's to judge
    }
  });
}

export function removeJobFiles(paths: StatePaths, jobs: readonly string[], trains: readonly string[]): void {
  for (const id of jobs) rmSync(paths.job(id), { force: true });
  for (const train of trains) rmSync(paths.log(train), { force: true });
}

/** What forgetJobs needs of a state folder's store (a clone's own, or a remote queue's cache). */
export interface ForgettingStore {
  paths: StatePaths;
  readJob(id: string): JobRecord | null;
  appendJournal(entry: JournalLine): number;
}

/**
 * Jobs pruned by `land gc` (`by`: 'gc' in this folder, 'remote' when their refs vanished from the
 * remote): their records go, and a `pruned` line ends each one's journal, so that no later rebuild
 * (of the index, of a missing record: lib/queue/rebuild.ts) brings them back.
 */
export function forgetJobs(store: ForgettingStore, ids: readonly string[], by: 'gc' | 'remote'): void {
  const at = new Date().toISOString();
  for (const id of ids) {
    let state: JobRecord['state'] | null = null;
    try {
      state = store.readJob(id)?.state ?? null;
    } catch {
      // a corrupt record is forgotten all the same
    }
    store.appendJournal({ at, kind: 'update', job: id, from: state, to: state, event: 'pruned', detail: { by } });
    rmSync(store.paths.job(id), { force: true });
  }
}
