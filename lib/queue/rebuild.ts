// A job record is the fold of its journal lines: the `submitted` line holds the record as it was
// first written, every later line the fields its change set (`set`, `unset`) and the state it
// moved to (`to`). So a record file that vanished (deleted by hand, by a gate, lost with a disk)
// is rebuilt from the journal and the queue goes on; the rebuild is journaled itself (`rebuilt`).
// A journal written before lines carried their fields cannot rebuild a record: it is reported as
// corrupt, never guessed.
import { LandError } from '../errors.js';
import { jobRecordSchema, type QueueStore, type JobRecord, type JournalEntry } from '../store/index.js';
import { nowIso } from './clock.js';

export type Fold = { ok: true; job: JobRecord } | { ok: false; problem: string; pruned?: true };

/** Whether the job's lines end with `land gc`'s `pruned` line: its record is gone for good (never rebuilt). Pure. */
export function wasPruned(entries: readonly JournalEntry[]): boolean {
  return entries.filter((entry) => entry.event !== 'rebuilt').at(-1)?.event === 'pruned';
}

/** The error for a command naming a job `land gc` pruned (exit 4, as for no such job). */
export function prunedError(id: string): LandError {
  return new LandError('not_found', `no job ${id}: it finished and was pruned by land gc`, { hint: 'see `land status --all` for job ids' });
}

/** The fields `next` sets or removes relative to `before` (state, id and version aside): what a journal line keeps. */
export function recordDelta(before: JobRecord, next: JobRecord): { set: Record<string, unknown>; unset?: string[] } {
  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  const a: Record<string, unknown> = before;
  const b: Record<string, unknown> = next;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (key === 'state' || key === 'id' || key === 'version') continue;
    if (JSON.stringify(a[key]) === JSON.stringify(b[key])) continue;
    if (b[key] === undefined) unset.push(key);
    else set[key] = b[key];
  }
  return unset.length ? { set, unset } : { set };
}

const describeLine = (entry: JournalEntry) => `the ${entry.event} line of ${entry.at}`;

/** Folds one job's journal lines (in file order) into its record. Pure. */
export function foldJournal(id: string, entries: readonly JournalEntry[]): Fold {
  const [first, ...rest] = entries;
  if (!first) return { ok: false, problem: 'the journal has no line of it' };
  if (wasPruned(entries)) return { ok: false, problem: 'it was pruned by land gc', pruned: true };
  if (first.event !== 'submitted' || !first.record) {
    return { ok: false, problem: `${describeLine(first)} does not hold the initial record (journal written by an older version of land)` };
  }
  let record: Record<string, unknown> = { ...first.record };
  for (const entry of rest) {
    if (entry.event === 'rebuilt') continue;
    if (entry.event === 'submitted' && entry.record) {
      record = { ...entry.record }; // the id was given again after a submit that failed to write its record
      continue;
    }
    if (!entry.set) return { ok: false, problem: `${describeLine(entry)} does not hold the fields it set (journal written by an older version of land)` };
    record = { ...record, ...entry.set };
    for (const key of entry.unset ?? []) delete record[key];
    if (entry.to) record.state = entry.to;
  }
  const parsed = jobRecordSchema.safeParse(record);
  if (!parsed.success) return { ok: false, problem: `the folded journal is no valid record (${parsed.error.issues[0]?.message ?? 'invalid'})` };
  if (parsed.data.id !== id) return { ok: false, problem: `the journal's record names job ${parsed.data.id}` };
  return { ok: true, job: parsed.data };
}

/**
 * Rebuilds the missing record of `id` from the journal, journals that and writes it. Null when the
 * journal has no line of the job (there is no such job) or ends with its `pruned` line; a `corrupt` error when it cannot rebuild
 * it. Caller holds the queue lock.
 */
export function rebuildJobLocked(store: QueueStore, id: string): JobRecord | null {
  const { entries } = store.readJournalOf(id); // a torn line is a change never written to the record
  if (!entries.length) return null;
  const fold = foldJournal(id, entries);
  if (!fold.ok && fold.pruned) return null;
  if (!fold.ok) {
    throw new LandError('corrupt', `job record ${id}.json is missing and the journal cannot rebuild it: ${fold.problem}`, {
      hint: 'see `land why` for its history; resubmit its branch to queue it again',
    });
  }
  const { state } = fold.job;
  store.appendJournal({ at: nowIso(), kind: 'update', job: id, from: state, to: state, event: 'rebuilt', detail: { lines: entries.length }, set: {} });
  store.writeJob(fold.job);
  return fold.job;
}

export interface MissingRecords {
  rebuilt: JobRecord[];
  corrupt: { id: string; problem: string }[];
}

/**
 * Every job the journal knows whose record file is gone: rebuilt, or reported. Reads the whole
 * journal and lists the jobs folder: only when the index of active jobs is rebuilt (activeSet.ts).
 * Caller holds the queue lock.
 */
export function rebuildEveryMissingLocked(store: QueueStore): MissingRecords {
  const present = new Set(store.jobFileIds());
  const result: MissingRecords = { rebuilt: [], corrupt: [] };
  for (const id of store.journaledJobIds()) {
    if (present.has(id)) continue;
    try {
      const job = rebuildJobLocked(store, id);
      if (job) result.rebuilt.push(job);
    } catch (error) {
      if (!(error instanceof LandError)) throw error;
      result.corrupt.push({ id, problem: error.message });
    }
  }
  return result;
}
