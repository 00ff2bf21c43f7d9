// The queue without reading every record ever written: the index of active jobs (index.json) names
// the queued, running and uncertain jobs, and the per-branch lists (branches/) every job of a
// branch. Both are written under the queue lock after the record change they mirror
// (transition.ts), and both are caches: the index names the journal bytes it mirrors, so
//   - a journal that grew since (a process killed between its record write and its index write, or
//     a writer in flight) is caught up from those bytes alone: the records of the jobs they name are
//     read again;
//   - a missing or unreadable index, a journal that shrank or was rewritten, a record that disagrees
//     with the index (edited by hand) or an unreadable branch list: the index and the branch lists
//     are rebuilt from a full scan of the records (the slow path, said once: store.note), and every
//     record the journal knows but the jobs folder lacks is rebuilt from the journal.
// Readers (status, the drain's listing) never wait for the lock on the fast path.
import { isLandError } from '../errors.js';
import {
  idAfter,
  indexOfRecords,
  isActiveState,
  JOB_ID_PATTERN,
  noteCorrupt,
  noteRecord,
  forget,
  type ActiveIndex,
  type CorruptRecord,
  type QueueStore,
  type JobRecord,
} from '../store/index.js';
import { nextJobId } from './ids.js';
import { rebuildEveryMissingLocked, rebuildJobLocked, type MissingRecords } from './rebuild.js';

/** Why the index was rebuilt from a full scan. */
export type RebuildReason =
  | 'missing or unreadable'
  | 'journal rewritten or shortened'
  | 'a record disagrees with it'
  | 'a branch list is unreadable'
  | 'without its branch lists';

type Check = { kind: 'ok' | 'behind'; index: ActiveIndex; size: number } | { kind: 'rebuild'; why: RebuildReason };

/** Whether the index mirrors the journal as it is: in step, behind (grown since), or to be rebuilt. */
function checkIndex(store: QueueStore): Check {
  const index = store.readIndex();
  if (!index) {
    // Nothing was ever journaled here: an empty queue, and nothing to write.
    if (!store.hasJournal()) return { kind: 'ok', index: { version: 1, journalEnd: 0, journalTail: '', lastId: null, active: {}, recent: [] }, size: 0 };
    return { kind: 'rebuild', why: 'missing or unreadable' };
  }
  if (index.lastId !== null && !store.hasBranchLists()) return { kind: 'rebuild', why: 'without its branch lists' };
  const mark = store.journalMark(index.journalEnd);
  if (mark.tail === null || mark.tail !== index.journalTail) return { kind: 'rebuild', why: 'journal rewritten or shortened' };
  return { kind: mark.size === index.journalEnd ? 'ok' : 'behind', index, size: mark.size };
}

interface CaughtUp {
  index: ActiveIndex;
  /** Named by the new journal lines but without a record. */
  missing: string[];
  /** branch → job ids of the new lines, for the branch lists. */
  branches: Map<string, string[]>;
}

/** The index brought up to `size`: the records of the jobs the journal names after its end, read again. */
function catchUp(store: QueueStore, start: ActiveIndex, size: number): CaughtUp {
  let index = start;
  const missing: string[] = [];
  const branches = new Map<string, string[]>();
  for (const id of store.journaledJobIds(start.journalEnd)) {
    if (!JOB_ID_PATTERN.test(id)) continue;
    const read = store.readJobOrProblem(id);
    if (read === null) missing.push(id);
    else if (!read.ok) index = noteCorrupt(index, id, index.active[id]);
    else {
      index = noteRecord(index, read.job);
      branches.set(read.job.branch, [...(branches.get(read.job.branch) ?? []), id]);
    }
  }
  return { index: { ...index, journalEnd: size }, missing, branches };
}

/** Writes the index as of the journal's current end (the caller holds the queue lock). */
function commitIndex(store: QueueStore, index: ActiveIndex): ActiveIndex {
  const mark = store.journalMark();
  const next = { ...index, journalEnd: mark.size, journalTail: mark.tail ?? '' };
  store.writeIndex(next);
  return next;
}

export interface IndexSync {
  index: ActiveIndex;
  /** Set when the index was rebuilt from a full scan. */
  rebuilt: RebuildReason | null;
  /** Records rebuilt from the journal, and those it could not rebuild. */
  missing: MissingRecords;
}

/** The slow path: the index and the branch lists from every record; missing records rebuilt from the journal. */
function rebuildIndexLocked(store: QueueStore, why: RebuildReason): IndexSync {
  const missing = rebuildEveryMissingLocked(store);
  const listing = store.listJobs();
  const corruptIds = listing.corrupt.map((bad) => bad.file.replace(/\.json$/, '')).filter((id) => JOB_ID_PATTERN.test(id));
  const byBranch = new Map<string, string[]>();
  for (const job of listing.jobs) byBranch.set(job.branch, [...(byBranch.get(job.branch) ?? []), job.id]);
  let written = true;
  for (const [branch, ids] of byBranch) {
    const known = store.branchJobIds(branch);
    if (known === null || ids.some((id) => !known.includes(id))) written = store.writeBranchJobs(branch, ids) && written;
  }
  const built = indexOfRecords(listing.jobs, corruptIds);
  // Ids of jobs whose records `land gc` pruned were given out too: the journal still names them.
  for (const id of store.journaledJobIds()) if (JOB_ID_PATTERN.test(id) && idAfter(id, built.lastId)) built.lastId = id;
  // A branch list that could not be written: the index stays unwritten, so the next command rebuilds again.
  const index = written ? commitIndex(store, built) : built;
  store.note(`rebuilt the index of active jobs from a full scan of ${listing.jobs.length + listing.corrupt.length} record(s) (the index was ${why})`);
  return { index, rebuilt: why, missing };
}

/**
 * Makes the index mirror the records, under the queue lock: in step (one small read and a stat),
 * caught up from the journal's new lines, or rebuilt (`full` forces that).
 */
export function syncIndexLocked(store: QueueStore, full?: RebuildReason): IndexSync {
  const check: Check = full ? { kind: 'rebuild', why: full } : checkIndex(store);
  const none: MissingRecords = { rebuilt: [], corrupt: [] };
  if (check.kind === 'ok') return { index: check.index, rebuilt: null, missing: none };
  if (check.kind === 'rebuild') return rebuildIndexLocked(store, check.why);
  const up = catchUp(store, check.index, check.size);
  let { index } = up;
  for (const id of up.missing) {
    try {
      const job = rebuildJobLocked(store, id);
      if (job) none.rebuilt.push(job);
      index = job ? noteRecord(index, job) : forget(index, id);
    } catch (error) {
      if (!isLandError(error, 'corrupt')) throw error;
      none.corrupt.push({ id, problem: error instanceof Error ? error.message : String(error) });
      index = forget(index, id);
    }
  }
  for (const [branch, ids] of up.branches) {
    if (!store.addBranchJobs(branch, ids)) return rebuildIndexLocked(store, 'a branch list is unreadable');
  }
  return { index: commitIndex(store, index), rebuilt: null, missing: none };
}

/**
 * Under the queue lock, at the start of a drain: the index in step, and every active job whose
 * record file is gone rebuilt from the journal (or reported). Reads the whole journal only when the
 * index itself is rebuilt.
 */
export function rebuildMissingLocked(store: QueueStore): MissingRecords {
  const sync = syncIndexLocked(store);
  const result: MissingRecords = { rebuilt: [...sync.missing.rebuilt], corrupt: [...sync.missing.corrupt] };
  if (sync.rebuilt) return result;
  for (const id of Object.keys(sync.index.active)) {
    if (store.jobExists(id)) continue;
    try {
      const job = rebuildJobLocked(store, id);
      if (job) result.rebuilt.push(job);
    } catch (error) {
      if (!isLandError(error, 'corrupt')) throw error;
      result.corrupt.push({ id, problem: error instanceof Error ? error.message : String(error) });
    }
  }
  return result;
}

export interface ActiveListing {
  /** Queued, in_progress and uncertain jobs (in no particular order). */
  jobs: JobRecord[];
  /** Records the index names that do not parse. */
  corrupt: CorruptRecord[];
}

type Read = { kind: 'listing'; listing: ActiveListing } | { kind: 'heal'; why: RebuildReason } | { kind: 'retry' };

/** One lock-free read of the active jobs through the index; a disagreement seen while the journal moved is retried. */
function readActive(store: QueueStore): Read {
  const check = checkIndex(store);
  if (check.kind === 'rebuild') return { kind: 'heal', why: check.why };
  const index = check.kind === 'behind' ? catchUp(store, check.index, check.size).index : check.index;
  const listing: ActiveListing = { jobs: [], corrupt: [] };
  let disagrees = false;
  for (const [id, entry] of Object.entries(index.active)) {
    const read = store.readJobOrProblem(id);
    if (read === null) continue; // gone: rebuilt from the journal by the drain (or by the change that needs it)
    if (!read.ok) listing.corrupt.push(read.corrupt);
    else if (!isActiveState(read.job.state)) disagrees = true;
    else {
      if (read.job.state !== entry.state || read.job.branch !== entry.branch) disagrees = true;
      listing.jobs.push(read.job);
    }
  }
  if (!disagrees) return { kind: 'listing', listing };
  // A writer may have changed a record since the index was read: then the journal grew.
  return store.journalMark().size !== check.size ? { kind: 'retry' } : { kind: 'heal', why: 'a record disagrees with it' };
}

/**
 * The index's entries of the active jobs (state, branch, target), caught up from the journal in
 * memory, without reading a record: for the progress lines' queue length. Null when the index must
 * be rebuilt.
 */
export function activeEntries(store: QueueStore): ActiveIndex['active'] | null {
  return indexNow(store)?.index.active ?? null;
}

/** The index as of the journal's end, lock-free: what is written, caught up in memory. */
export interface IndexNow {
  index: ActiveIndex;
  /** branch → ids of the jobs the journal named after the written index (its branch lists lack them). */
  behind: Map<string, string[]>;
}

/**
 * The index and the branch lists' missing entries, caught up in memory from the journal's new
 * lines without the lock (a clone of a remote queue gets them with every fetch; the next command
 * that holds the lock writes them). Null when the index must be rebuilt.
 */
export function indexNow(store: QueueStore): IndexNow | null {
  const check = checkIndex(store);
  if (check.kind === 'rebuild') return null;
  if (check.kind === 'ok') return { index: check.index, behind: new Map() };
  const up = catchUp(store, check.index, check.size);
  return { index: up.index, behind: up.branches };
}

/** The active jobs by a full scan: what a reader falls back to when the index cannot be used. */
function scanActive(store: QueueStore): ActiveListing {
  const { jobs, corrupt } = store.listJobs();
  return { jobs: jobs.filter((job) => isActiveState(job.state)), corrupt };
}

/**
 * The queued, running and uncertain jobs, without reading finished records. Lock-free; when the
 * index must be rebuilt, it is, once, under the queue lock.
 */
export async function listActiveJobs(store: QueueStore): Promise<ActiveListing> {
  for (let attempt = 0; attempt < 4; attempt += 1) {
    const read = readActive(store);
    if (read.kind === 'listing') return read.listing;
    if (read.kind === 'heal') await store.withQueueLock(() => syncIndexLocked(store, read.why === 'a record disagrees with it' ? read.why : undefined));
  }
  return scanActive(store);
}

/** listActiveJobs for synchronous readers (progress lines, `land why`): a full scan instead of a rebuild when the index is unusable. */
export function listActiveJobsSync(store: QueueStore): ActiveListing {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const read = readActive(store);
    if (read.kind === 'listing') return read.listing;
    if (read.kind === 'heal') break;
  }
  return scanActive(store);
}

/** The newest finished jobs the index names (at most RECENT_KEPT), readable ones only. */
export function recentFinishedJobs(store: QueueStore, index: ActiveIndex | null = store.readIndex()): JobRecord[] {
  if (!index) return [];
  return index.recent.flatMap((id) => {
    const read = store.readJobOrProblem(id);
    return read?.ok && !isActiveState(read.job.state) ? [read.job] : [];
  });
}

/** Every readable job of `branch`: its branch list and the active jobs the index names for it (caller holds the queue lock). */
export function jobsOfBranchLocked(store: QueueStore, sync: IndexSync, branch: string): JobRecord[] {
  let index = sync.index;
  let listed = store.branchJobIds(branch);
  if (listed === null) {
    index = syncIndexLocked(store, 'a branch list is unreadable').index;
    listed = store.branchJobIds(branch) ?? [];
  }
  const ids = new Set(listed);
  for (const [id, entry] of Object.entries(index.active)) if (entry.branch === branch) ids.add(id);
  return [...ids].flatMap((id) => {
    const read = store.readJobOrProblem(id);
    return read?.ok && read.job.branch === branch ? [read.job] : [];
  });
}

/** The records of the index's in_progress jobs (caller holds the queue lock). */
export function runningJobsLocked(store: QueueStore, index: ActiveIndex): JobRecord[] {
  return Object.entries(index.active).flatMap(([id, entry]) => {
    if (entry.state !== 'in_progress') return [];
    const read = store.readJobOrProblem(id);
    return read?.ok && read.job.state === 'in_progress' ? [read.job] : [];
  });
}

/** A fresh job id: after the highest the index and the store know, checked against the files (caller holds the queue lock). */
export function allocateJobIdLocked(store: QueueStore, index: ActiveIndex, date = new Date()): string {
  const given = [index.lastId, store.lastIdGiven()].filter((id): id is string => id !== null);
  let id = nextJobId(given, date);
  while (store.jobExists(id)) id = nextJobId([id], date);
  return id;
}

export interface IndexUpdate {
  /** A record was written with this content. */
  note(job: JobRecord): void;
  /** A new record was written: its branch list gains it too. */
  created(job: JobRecord): void;
  /** Writes the branch lists, then the index (after the records they mirror). */
  commit(): void;
}

/**
 * Follows the record writes of one mutation under the queue lock (transition.ts) and writes the
 * index after them. A process killed before `commit`, or a write that fails, leaves the index
 * behind the journal: the next reader catches it up.
 */
export function beginIndexUpdate(store: QueueStore): IndexUpdate {
  let index = syncIndexLocked(store).index;
  const branches = new Map<string, string[]>();
  return {
    note(job) {
      index = noteRecord(index, job);
    },
    created(job) {
      index = noteRecord(index, job);
      branches.set(job.branch, [...(branches.get(job.branch) ?? []), job.id]);
    },
    commit() {
      for (const [branch, ids] of branches) if (!store.addBranchJobs(branch, ids)) return;
      commitIndex(store, index);
    },
  };
}

/**
 * The active jobs and every job the journal names from byte `start` on (a drain's own changes,
 * and any made meanwhile): what a drain's summary reports, read without the finished records of
 * earlier drains.
 */
export function jobsChangedSince(store: QueueStore, start: number): JobRecord[] {
  const jobs = new Map(listActiveJobsSync(store).jobs.map((job) => [job.id, job]));
  for (const id of store.journaledJobIds(start)) {
    if (jobs.has(id) || !JOB_ID_PATTERN.test(id)) continue;
    const read = store.readJobOrProblem(id);
    if (read?.ok) jobs.set(id, read.job);
  }
  return [...jobs.values()];
}
