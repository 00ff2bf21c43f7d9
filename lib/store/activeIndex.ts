// The index of active jobs (`index.json`) and the per-branch job lists (`branches/`): what lets a
// command or a train find the queue without reading every record ever written. Both are caches of
// the records, never the truth: the index names the journal bytes it mirrors (`journalEnd`, and the
// last bytes before it, `journalTail`), so a reader that finds the journal longer catches up from
// those bytes alone, and one that finds it shorter or rewritten rebuilds from a full scan
// (lib/queue/activeSet.ts). Pure shapes and helpers here; the file access is in local/indexFiles.ts.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { jobIdSchema, jobStateSchema, type JobState } from './formats/index.js';

/** States a job can still leave without a person: the queue `land status` shows, and `uncertain`. */
export const ACTIVE_STATES: readonly JobState[] = ['queued', 'in_progress', 'uncertain'];
export const isActiveState = (state: JobState): boolean => ACTIVE_STATES.includes(state);

/** How many finished jobs the index names (newest first): completion's offer of finished ids. */
export const RECENT_KEPT = 100;

/** How many journal bytes before `journalEnd` the index keeps, to notice a rewritten journal. */
export const JOURNAL_TAIL_BYTES = 64;

/** An active job as the index names it; `target` is absent for records written before jobs named one. */
export const activeEntrySchema = z.object({ state: jobStateSchema, branch: z.string(), target: z.string().optional() });
export type ActiveEntry = z.infer<typeof activeEntrySchema>;

export const activeIndexSchema = z.object({
  version: z.literal(1),
  /** The journal's size when the index was last written: every line before it is mirrored. */
  journalEnd: z.number().int().nonnegative(),
  /** Hex of the journal's last JOURNAL_TAIL_BYTES (or fewer) bytes before journalEnd. */
  journalTail: z.string().regex(/^[0-9a-f]*$/),
  /** The highest job id ever given out (ids stay unique without listing jobs/). */
  lastId: jobIdSchema.nullable(),
  /** Every queued, in_progress and uncertain job (and every record found corrupt), by id. */
  active: z.record(jobIdSchema, activeEntrySchema),
  /** The newest finished jobs, newest first, at most RECENT_KEPT. */
  recent: z.array(jobIdSchema),
});
export type ActiveIndex = z.infer<typeof activeIndexSchema>;

export const branchJobsSchema = z.object({ branch: z.string(), jobs: z.array(jobIdSchema) });

/** The file name (without folder) of a branch's job list: any branch name becomes a safe name. */
export function branchKey(branch: string): string {
  return createHash('sha256').update(branch).digest('hex').slice(0, 40);
}

const ID_PARTS = /^j-(\d{8})-(\d+)$/;

/** Whether job id `a` was given out after `b` (j-YYYYMMDD-N compared by day, then by number). */
export function idAfter(a: string, b: string | null): boolean {
  if (b === null) return true;
  const pa = ID_PARTS.exec(a);
  const pb = ID_PARTS.exec(b);
  if (!pa || !pb) return pa || pb ? pa !== null : a > b;
  return pa[1] !== pb[1] ? (pa[1] as string) > (pb[1] as string) : Number(pa[2]) > Number(pb[2]);
}

export function emptyIndex(): ActiveIndex {
  return { version: 1, journalEnd: 0, journalTail: '', lastId: null, active: {}, recent: [] };
}

/** The index after a record was read or written: active jobs are named, finished ones join `recent`. Pure. */
type Named = { id: string; state: JobState; branch: string; target?: string };

const entryOf = (job: Named): ActiveEntry =>
  job.target === undefined ? { state: job.state, branch: job.branch } : { state: job.state, branch: job.branch, target: job.target };

export function noteRecord(index: ActiveIndex, job: Named): ActiveIndex {
  const active = { ...index.active };
  let recent = index.recent.filter((id) => id !== job.id);
  if (isActiveState(job.state)) active[job.id] = entryOf(job);
  else {
    delete active[job.id];
    recent = [job.id, ...recent].sort((a, b) => (idAfter(a, b) ? -1 : 1)).slice(0, RECENT_KEPT);
  }
  const lastId = idAfter(job.id, index.lastId) ? job.id : index.lastId;
  return { ...index, active, recent, lastId };
}

/** A record that is corrupt stays named (its state unknown) so every listing reports it. Pure. */
export function noteCorrupt(index: ActiveIndex, id: string, known?: ActiveEntry): ActiveIndex {
  const lastId = idAfter(id, index.lastId) ? id : index.lastId;
  return { ...index, active: { ...index.active, [id]: known ?? { state: 'queued', branch: '' } }, lastId };
}

/** Forgets a job whose record is gone and could not be rebuilt. Pure. */
export function forget(index: ActiveIndex, id: string): ActiveIndex {
  const active = { ...index.active };
  delete active[id];
  return { ...index, active, recent: index.recent.filter((other) => other !== id) };
}

/**
 * The index of a full scan: every active record and every corrupt one named, the newest finished
 * ones in `recent`, the highest id. Linear in the records (the slow path, run once). Pure.
 */
export function indexOfRecords(jobs: readonly Named[], corruptIds: readonly string[]): ActiveIndex {
  const index = emptyIndex();
  const finished: string[] = [];
  for (const job of jobs) {
    if (isActiveState(job.state)) index.active[job.id] = entryOf(job);
    else finished.push(job.id);
    if (idAfter(job.id, index.lastId)) index.lastId = job.id;
  }
  for (const id of corruptIds) {
    index.active[id] = { state: 'queued', branch: '' };
    if (idAfter(id, index.lastId)) index.lastId = id;
  }
  index.recent = finished.sort((a, b) => (idAfter(a, b) ? -1 : 1)).slice(0, RECENT_KEPT);
  return index;
}
