// The index of active jobs and the branches' job lists (lib/queue/activeSet.ts): listings that never
// read a finished record, a journal that grew behind the index caught up from its new lines, a
// missing, stale or contradicted index rebuilt from a full scan (said once), submit's idempotency
// and tip replacement with finished jobs present, ids unique without listing the jobs folder.
import { copyFileSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  allocateJobIdLocked,
  applyChanges,
  cancelChange,
  createJobLocked,
  listActiveJobs,
  newJobRecord,
  readJobOrThrow,
  rebuildMissingLocked,
  recentFinishedJobs,
  submitJob,
  syncIndexLocked,
} from '../../lib/queue/index.js';
import { findJob } from '../../lib/queue/lookup.js';
import { branchKey, emptyIndex, idAfter, noteRecord, openStore, RECENT_KEPT, type QueueStore, type JobRecord } from '../../lib/store/index.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';

afterAll(cleanupTempDirs);

const notes: string[] = [];
beforeEach(() => {
  notes.length = 0;
});

/** The store of `dir`, its notes (a slow-path rebuild's) kept in `notes`. */
async function noted(dir: string): Promise<QueueStore> {
  const store = await openStore(dir);
  store.note = (message) => notes.push(message);
  return store;
}

const TIP = 'a'.repeat(40);
let counter = 0;

/** A job created the way submit does (journal, record, branch list, index), on a branch of its own. */
async function created(store: QueueStore, branch = `b${++counter}`): Promise<JobRecord> {
  return store.withQueueLock(() => {
    const index = syncIndexLocked(store).index;
    const id = allocateJobIdLocked(store, index);
    return createJobLocked(store, newJobRecord({ id, branch, tip: TIP, title: branch, submitter: 't', urgent: false }));
  });
}

async function canceled(store: QueueStore): Promise<JobRecord> {
  const job = await created(store);
  await applyChanges(store, [cancelChange(job.id, 't')]);
  return job;
}

const ids = (jobs: readonly JobRecord[]) => jobs.map((job) => job.id).sort();

describe('the index of active jobs', () => {
  it('lists the active jobs only: a damaged finished record is never read, a damaged active one is reported', async () => {
    const store = await noted(makeRepo().dir);
    const done = [await canceled(store), await canceled(store)];
    const live = [await created(store), await created(store)];
    writeFileSync(store.paths.job((done[0] as JobRecord).id), '{"not a record"');
    const listing = await listActiveJobs(store);
    expect(ids(listing.jobs)).toEqual(ids(live));
    expect(listing.corrupt).toEqual([]);
    writeFileSync(store.paths.job((live[0] as JobRecord).id), '{"version": 1');
    const after = await listActiveJobs(store);
    expect(ids(after.jobs)).toEqual([(live[1] as JobRecord).id]);
    expect(after.corrupt.map((bad) => bad.file)).toEqual([`${(live[0] as JobRecord).id}.json`]);
    expect(notes).toEqual([]); // never rebuilt: the damaged finished record stayed unread
    expect(recentFinishedJobs(store).map((job) => job.id)).toEqual([(done[1] as JobRecord).id]);
  });

  it('catches up from the journal when a change was written without its index (a kill between the two)', async () => {
    const dir = makeRepo().dir;
    const store = await noted(dir);
    const first = await created(store);
    const saved = `${store.paths.index}.saved`;
    copyFileSync(store.paths.index, saved);
    // A cancel and a submit whose index writes were lost: the old index is put back.
    await applyChanges(store, [cancelChange(first.id, 't')]);
    const second = await created(store, 'later');
    const elsewhere = await created(store, 'elsewhere');
    await applyChanges(store, [cancelChange(elsewhere.id, 't')]);
    copyFileSync(saved, store.paths.index);
    expect(ids((await listActiveJobs(store)).jobs)).toEqual([second.id]);
    // A finished job its branch list lacks (a fetch of a remote queue writes records and journal
    // lines, not the lists) is found by its branch, lock-free, from the journal's new lines.
    rmSync(store.paths.branchJobs(branchKey('elsewhere')));
    expect((await findJob(store, dir, 'elsewhere')).id).toBe(elsewhere.id);
    // The next writer persists the caught-up index and the branch list it missed: no rebuild.
    rmSync(store.paths.branchJobs(branchKey('later')));
    await store.withQueueLock(() => syncIndexLocked(store));
    expect(notes).toEqual([]);
    expect(store.branchJobIds('later')).toEqual([second.id]);
    const third = await created(store);
    expect(new Set([first.id, second.id, third.id]).size).toBe(3);
    expect(store.readIndex()?.active).toEqual({ [second.id]: { state: 'queued', branch: 'later' }, [third.id]: { state: 'queued', branch: third.branch } });
    // Without the branch lists' folder: one rebuild, said once.
    rmSync(store.paths.branchesDir, { recursive: true });
    await listActiveJobs(store);
    await listActiveJobs(store);
    expect(notes).toEqual([expect.stringMatching(/without its branch lists/)]);
    expect(store.branchJobIds('later')).toEqual([second.id]);
  });

  it('rebuilds a deleted, truncated-journal or contradicted index from a full scan, once, with a note', async () => {
    const store = await noted(makeRepo().dir);
    await canceled(store);
    const live = await created(store);
    rmSync(store.paths.index);
    expect(ids((await listActiveJobs(store)).jobs)).toEqual([live.id]);
    expect(notes).toEqual([
      expect.stringMatching(/rebuilt the index of active jobs from a full scan of 2 record\(s\) \(the index was missing or unreadable\)/),
    ]);
    expect(store.readIndex()).not.toBeNull();
    await listActiveJobs(store);
    expect(notes).toHaveLength(1);
    // A record changed by hand, without a journal line: the index disagrees, and is rebuilt.
    writeFileSync(store.paths.job(live.id), JSON.stringify({ ...live, state: 'canceled' }));
    expect((await listActiveJobs(store)).jobs).toEqual([]);
    expect(notes[1]).toMatch(/a record disagrees with it/);
    // A journal cut shorter than the index says.
    const size = readFileSync(store.paths.journal).length;
    truncateSync(store.paths.journal, size - 10);
    await listActiveJobs(store);
    expect(notes[2]).toMatch(/journal rewritten or shortened/);
  });

  it('at a drain start rebuilds only active records that vanished; show folds a vanished finished one', async () => {
    const store = await noted(makeRepo().dir);
    const done = await canceled(store);
    const live = await created(store);
    rmSync(store.paths.job(done.id));
    rmSync(store.paths.job(live.id));
    const missing = await store.withQueueLock(() => rebuildMissingLocked(store));
    expect(missing.rebuilt.map((job) => job.id)).toEqual([live.id]);
    expect(store.jobExists(done.id)).toBe(false);
    expect(readJobOrThrow(store, done.id)).toMatchObject({ id: done.id, state: 'canceled' });
    expect(notes).toEqual([]);
  });

  it('gives out ids past the highest known, checked against the files', async () => {
    expect(idAfter('j-20260101-10000', 'j-20260101-9999')).toBe(true);
    expect(idAfter('j-20260102-0001', 'j-20260101-9999')).toBe(true);
    const store = await noted(makeRepo().dir);
    const date = new Date('2026-01-01T12:00:00Z');
    const index = { version: 1 as const, journalEnd: 0, journalTail: '', lastId: 'j-20260101-9999', active: {}, recent: [] };
    expect(allocateJobIdLocked(store, index, date)).toBe('j-20260101-10000');
    store.writeJob(newJobRecord({ id: 'j-20260101-10000', branch: 'x', tip: TIP, title: 'x', submitter: 't', urgent: false }));
    expect(allocateJobIdLocked(store, index, date)).toBe('j-20260101-10001');
    expect(allocateJobIdLocked(store, { ...index, lastId: null }, date)).toBe('j-20260101-0001');
  });

  it('keeps at most RECENT_KEPT finished jobs in its recent list, newest first', () => {
    let index = emptyIndex();
    const id = (n: number) => `j-20260101-${String(n).padStart(4, '0')}`;
    for (let n = 1; n <= RECENT_KEPT + 5; n += 1) index = noteRecord(index, { id: id(n), state: 'queued', branch: `r${n}` });
    for (let n = 1; n <= RECENT_KEPT + 5; n += 1) index = noteRecord(index, { id: id(n), state: 'canceled', branch: `r${n}` });
    expect(index.recent).toHaveLength(RECENT_KEPT);
    expect(index.recent[0]).toBe(id(RECENT_KEPT + 5));
    expect(index.active).toEqual({});
    expect(index.lastId).toBe(id(RECENT_KEPT + 5));
    index = noteRecord(index, { id: id(RECENT_KEPT + 5), state: 'queued', branch: 'again' }); // reopened
    expect(index.recent).not.toContain(id(RECENT_KEPT + 5));
    expect(index.active[id(RECENT_KEPT + 5)]).toEqual({ state: 'queued', branch: 'again' });
  });
});

describe('submit with finished jobs present', () => {
  it('is idempotent, requeues the same failed-or-canceled job and replaces a queued tip', async () => {
    const repo = makeRepo();
    const store = await noted(repo.dir);
    for (let i = 0; i < 5; i += 1) await canceled(store); // finished jobs of other branches
    repo.branch('feature', { 'feature.txt': '1\n' });
    repo.branch('other', { 'other.txt': '1\n' });
    const submit = (branch: string) => submitJob(store, { cwd: repo.dir, branch, target: 'main' });
    const first = await submit('feature');
    expect(first.kind).toBe('created');
    expect((await submit('feature')).kind).toBe('existing');
    await applyChanges(store, [cancelChange(first.job.id, 't')]);
    const again = await submit('feature');
    expect(again).toMatchObject({ kind: 'requeued', job: { id: first.job.id, state: 'queued' } });
    // Its index entry lost (a kill before the index write): the branch list still finds it.
    rmSync(store.paths.index);
    expect((await submit('feature')).kind).toBe('existing');
    const other = await submit('other');
    repo.git('checkout', '-q', 'other');
    repo.commit('more', { 'other.txt': '2\n' });
    repo.git('checkout', '-q', 'main');
    const updated = await submit('other');
    expect(updated).toMatchObject({ kind: 'tip_updated', job: { id: other.job.id } });
    const listing = await listActiveJobs(store);
    expect(ids(listing.jobs)).toEqual([first.job.id, other.job.id].sort());
    expect(new Set(ids(listing.jobs)).size).toBe(2);
  });
});
