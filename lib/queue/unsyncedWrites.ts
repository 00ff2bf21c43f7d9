// A drain writes job records and window.json without fsync (two fsyncs a write saved, three records
// and the window a lone train). That is safe because every record change is journaled (fsynced)
// first and the journal folds into the record (rebuild.ts), and because data not fsynced is lost
// only when the machine stops, never when a process is killed. So a drain starts by writing the
// unsynced mark (fsynced: the boot id and the journal's size), and ends by fsyncing the records it
// wrote and removing the mark. A drain that finds a mark left behind:
//  - of this boot (its drainer was killed): the page cache kept every write; it fsyncs the records
//    the journal names since the mark and takes the mark over;
//  - of another boot (a power cut or a crash of the machine may have lost writes): every record the
//    journal names since the mark is folded from the journal and compared with its file; one that
//    is missing, empty, unreadable or older than the fold is rewritten (journaled as `rebuilt`).
// docs/state.md#records-written-without-fsync.
import type { JobRead, JobRecord, QueueStore, UnsyncedWrites } from '../store/index.js';
import { nowIso } from './clock.js';
import { foldJournal, type Fold } from './rebuild.js';

/** What a check of the records after a power cut decided for one job. */
export type RecordCheck = { kind: 'keep' } | { kind: 'rewrite'; job: JobRecord } | { kind: 'corrupt'; problem: string };

/** JSON with object keys sorted: two records with the same fields compare equal whatever their order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

/** Whether two records hold the same fields and values (key order aside). Pure. */
export function sameRecord(a: JobRecord, b: JobRecord): boolean {
  return canonical(a) === canonical(b);
}

/**
 * The record file (`read`: null when missing) against the journal's fold. Pure. A fold differs:
 * the file is rewritten. The journal cannot fold it (lines of an older version of land): a readable
 * file is kept as it is, an unreadable one is reported; a missing one is left to the rebuild of
 * missing records, which reports it. A job `land gc` pruned stays pruned.
 */
export function checkRecord(read: JobRead | null, fold: Fold): RecordCheck {
  if (fold.ok) return read?.ok && sameRecord(read.job, fold.job) ? { kind: 'keep' } : { kind: 'rewrite', job: fold.job };
  if (fold.pruned || read === null || read.ok) return { kind: 'keep' };
  return { kind: 'corrupt', problem: `${read.corrupt.problem}, and the journal cannot rebuild it: ${fold.problem}` };
}

export interface PowerCutRepair {
  /** The records checked: every job the journal names since the mark. */
  checked: number;
  rebuilt: JobRecord[];
  corrupt: { id: string; problem: string }[];
  /** window.json was unreadable and removed (the window starts again at batch.max). */
  windowReset: boolean;
}

/** Rewrites (fsynced) each record of `ids` that the journal's fold says a power cut left behind. Caller holds the queue lock. */
function repairRecords(store: QueueStore, writes: UnsyncedWrites, ids: readonly string[]): PowerCutRepair {
  const lines = store.readJournalOfJobs(ids);
  const repair: PowerCutRepair = { checked: ids.length, rebuilt: [], corrupt: [], windowReset: false };
  for (const id of ids) {
    const entries = lines.get(id) ?? [];
    const check = checkRecord(store.readJobOrProblem(id), foldJournal(id, entries));
    if (check.kind === 'corrupt') repair.corrupt.push({ id, problem: `job record ${id}.json ${check.problem}` });
    if (check.kind !== 'rewrite') continue;
    const { state } = check.job;
    const detail = { lines: entries.length, why: 'power_cut' };
    store.appendJournal({ at: nowIso(), kind: 'update', job: id, from: state, to: state, event: 'rebuilt', detail, set: {} });
    store.writeJob(check.job);
    repair.rebuilt.push(check.job);
  }
  repair.windowReset = writes.dropUnreadableWindow();
  return repair;
}

/** Stores whose mark was settled: a process outlives no boot, so once is enough. */
const settled = new WeakSet<QueueStore>();

function describeRepair(repair: PowerCutRepair): string | null {
  const what = [
    repair.rebuilt.length ? `${repair.rebuilt.length} job record(s) rebuilt from the journal` : '',
    repair.corrupt.length ? `${repair.corrupt.length} unreadable and not rebuildable (see land status)` : '',
    repair.windowReset ? 'window.json reset' : '',
  ].filter(Boolean);
  return what.length ? `the machine restarted while a drain wrote records without fsync: ${what.join(', ')}` : null;
}

/**
 * Before a change decided from the records (every change goes through applyChanges), under the queue lock: a
 * mark another boot left (no drain ran since the restart) has its records repaired as a drain's
 * start would, and is removed, so no change is decided from a record the power cut left behind.
 */
export function settleRestartLocked(store: QueueStore): void {
  if (settled.has(store)) return;
  settled.add(store);
  const writes = store.unsyncedWrites();
  const left = writes?.readMark();
  if (!writes || !left || left.bootId === writes.bootId) return;
  const repair = repairRecords(store, writes, store.journaledJobIds(left.journalFrom));
  writes.end();
  const said = describeRepair(repair);
  if (said) store.note(said);
}

/**
 * At a drain's start, under the queue lock: settles what a mark left behind says (fsyncs the
 * records of this boot's writes, or repairs them after another boot's), then writes this drain's
 * mark. From then on the store writes records without fsync. Null: no writes without fsync here
 * (no boot id, or a queue kept in a remote); the repair otherwise (empty when none was needed).
 */
export function beginUnsyncedLocked(store: QueueStore): PowerCutRepair | null {
  settled.add(store);
  const writes = store.unsyncedWrites();
  if (!writes) return null;
  const none: PowerCutRepair = { checked: 0, rebuilt: [], corrupt: [], windowReset: false };
  const left = writes.readMark();
  let repair = none;
  if (left) {
    const ids = store.journaledJobIds(left.journalFrom);
    if (left.bootId === writes.bootId) writes.syncRecords(ids);
    else repair = repairRecords(store, writes, ids);
  }
  writes.begin({ bootId: writes.bootId, journalFrom: store.journalMark().size, pid: process.pid, since: nowIso() });
  return repair;
}

/** At a drain's end: the records it wrote (the jobs the journal names since its mark) fsynced, the mark removed. */
export function endUnsynced(store: QueueStore): void {
  const writes = store.unsyncedWrites();
  const mark = writes?.readMark();
  if (!writes || !mark) return;
  writes.syncRecords(store.journaledJobIds(mark.journalFrom));
  writes.end();
}
