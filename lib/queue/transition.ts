// Every change of a job record goes through applyChanges: under the queue lock it re-reads each
// record, checks the state change is allowed, appends the journal line, then writes the record.
// A process killed between the two leaves a journal line without its record change (the record
// keeps its previous content), never a record change nobody journaled. A job left in_progress that
// way is decided against git by the next drainer's recovery (lib/landing/recovery.ts). Each line
// carries what it changed (the submitted line the whole first record, every later line the fields
// it set), so a record that vanished is rebuilt from the journal (lib/queue/rebuild.ts).
import { LandError, isLandError } from '../errors.js';
import { failpoint } from '../failpoint.js';
import type { QueueStore } from '../store/index.js';
import type { JobReason, JobRecord, JobState, JournalDetailOf, JournalEventDetail } from '../store/index.js';
import { nowIso } from './clock.js';
import { beginIndexUpdate } from './activeSet.js';
import { prunedError, rebuildJobLocked, recordDelta, wasPruned } from './rebuild.js';
import { settleRestartLocked } from './unsyncedWrites.js';

// `uncertain`: git and the record disagree in a way the journal does not explain. Only `land
// reconcile` moves a job into it (event `uncertain`) or out of it (`reconciled` once evidence
// decides, `resolved` when a person does): see RECONCILE_EVENTS and docs/reconcile.md.
const ALLOWED: Record<JobState, readonly JobState[]> = {
  // queued → failed: a job whose tip is no commit (reason bad_tip) is refused before it rides.
  queued: ['in_progress', 'failed', 'canceled', 'uncertain'],
  in_progress: ['queued', 'landed', 'failed', 'canceled', 'uncertain'],
  failed: ['queued', 'uncertain'],
  landed: ['uncertain'],
  canceled: ['queued', 'uncertain'],
  uncertain: ['queued', 'landed', 'failed', 'canceled'],
};

/** The only events that move a job into or out of `uncertain` (lib/reconcile). */
export const RECONCILE_EVENTS: readonly string[] = ['uncertain', 'reconciled', 'resolved'];

/**
 * Leaving `failed` or `canceled` is a person's decision, never the drainer's: only `land retry`
 * (`retried`) and a resubmit of the same branch at the same tip (`resubmitted`) reopen a job.
 */
export const REOPEN_EVENTS: readonly string[] = ['retried', 'resubmitted'];

export function canTransition(from: JobState, to: JobState, event?: string): boolean {
  if (!ALLOWED[from].includes(to)) return false;
  if (from === 'uncertain' || to === 'uncertain') return event === undefined || RECONCILE_EVENTS.includes(event);
  const reopens = (from === 'failed' || from === 'canceled') && to === 'queued';
  return !reopens || event === undefined || REOPEN_EVENTS.includes(event);
}

/** A change of one record: what it sets, and the journal line's event and its detail (lib/store/formats/journalLine.ts). */
export type JobChange = JobChangeFields & JournalEventDetail;

interface JobChangeFields {
  id: string;
  /** New state; omitted for an update that keeps the state (tip update, conflict preview). */
  to?: JobState;
  /** Only apply when the record is in one of these states; otherwise a `state` error. */
  from?: readonly JobState[];
  /**
   * The drainer's changes planned from a listing read before the lock: when `from` no longer
   * holds (a user canceled the job meanwhile), skip the change instead of failing.
   */
  lenient?: boolean;
  /** Only apply while the record, read under the lock, still matches; otherwise skipped. */
  when?: (job: JobRecord) => boolean;
  patch?: JobPatch | ((job: JobRecord) => JobPatch);
}

/** The fields a change sets: a record's, the reason one this version writes (lib/store/formats/jobReason.ts). */
export type JobPatch = Partial<JobRecord> & { reason?: JobReason | null };

/**
 * The record a change applies to. A record file that vanished is rebuilt from the journal; one the
 * journal cannot rebuild is a `corrupt` error, except for the drainer's lenient changes, which
 * skip it (the drain reports it as a corrupt record and goes on with the others).
 */
function readOrRebuild(store: QueueStore, change: JobChange): JobRecord | 'skip' {
  const job = store.readJob(change.id);
  if (job) return job;
  try {
    const rebuilt = rebuildJobLocked(store, change.id);
    if (rebuilt) return rebuilt;
  } catch (error) {
    if (change.lenient && error instanceof LandError && error.code === 'corrupt') return 'skip';
    throw error;
  }
  // Pruned by land gc (here, or in another clone of a remote queue) since the drainer listed it: gone for good.
  if (wasPruned(store.readJournalOf(change.id).entries)) {
    if (change.lenient) return 'skip';
    throw prunedError(change.id);
  }
  throw new LandError('not_found', `no job ${change.id}`);
}

/** Writes the record whose journal line starts at `offset`; a full disk takes the line back, so neither changed. */
function writeJournaled(store: QueueStore, job: JobRecord, offset: number): void {
  try {
    store.writeJob(job);
  } catch (error) {
    if (isLandError(error, 'no_space')) store.takeBackJournal(offset);
    throw error;
  }
}

/**
 * Applies changes to records whose lock the caller already holds. Each change: journal line, then
 * record; after the last one the index of active jobs (activeSet.ts), which a process killed
 * before it leaves behind the journal, to be caught up by the next reader.
 */
export function applyChangesLocked(store: QueueStore, changes: readonly JobChange[]): JobRecord[] {
  const results: JobRecord[] = [];
  settleRestartLocked(store); // after a power cut, no change is decided from a record it left behind
  const index = beginIndexUpdate(store);
  for (const change of changes) {
    const job = readOrRebuild(store, change);
    if (job === 'skip') continue;
    if (change.from && !change.from.includes(job.state)) {
      if (change.lenient) continue;
      throw new LandError('state', `job ${job.id} is ${job.state}; expected ${change.from.join(' or ')}`);
    }
    if (change.when && !change.when(job)) continue;
    if (change.to && change.to !== job.state && !canTransition(job.state, change.to, change.event)) {
      throw new LandError('state', `job ${job.id} cannot go from ${job.state} to ${change.to} (${change.event})`);
    }
    const patch = typeof change.patch === 'function' ? change.patch(job) : (change.patch ?? {});
    const next: JobRecord = { ...job, ...patch, state: change.to ?? job.state, id: job.id, version: 1 };
    const moved = change.to !== undefined && change.to !== job.state;
    const offset = store.appendJournal({
      at: nowIso(),
      kind: moved ? 'transition' : 'update',
      job: job.id,
      from: job.state,
      to: next.state,
      event: change.event,
      detail: change.detail ?? {},
      ...recordDelta(job, next),
    });
    writeJournaled(store, next, offset);
    index.note(next);
    results.push(next);
  }
  failpoint('before-index');
  index.commit();
  return results;
}

/** Applies changes under one hold of the queue lock; `also` runs under the same hold. */
export function applyChanges(store: QueueStore, changes: readonly JobChange[], also?: (jobs: JobRecord[]) => void): Promise<JobRecord[]> {
  return store.withQueueLock(() => {
    const jobs = applyChangesLocked(store, changes);
    also?.(jobs);
    return jobs;
  });
}

/** Writes a brand-new record, journaled first. Caller holds the queue lock. */
export function createJobLocked(store: QueueStore, job: JobRecord, detail: JournalDetailOf<'submitted'> | Record<string, never> = {}): JobRecord {
  if (store.jobExists(job.id)) throw new LandError('state', `job ${job.id} already exists`);
  const index = beginIndexUpdate(store);
  const offset = store.appendJournal({ at: nowIso(), kind: 'transition', job: job.id, from: null, to: job.state, event: 'submitted', detail, record: job });
  writeJournaled(store, job, offset);
  index.created(job);
  failpoint('before-index');
  index.commit();
  return job;
}
