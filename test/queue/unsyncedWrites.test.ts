// A drain writes records without fsync under the unsynced mark. A mark left by a drainer killed in
// this boot is taken over (the page cache kept every write); one left before the machine restarted
// has every record it covers checked against the journal and rebuilt where the power cut left it behind.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { applyChanges, beginUnsyncedLocked, createJobLocked, endUnsynced, foldJournal, newJobRecord } from '../../lib/queue/index.js';
import { BOOT_ID_ENV } from '../../lib/store/bootId.js';
import { openStore, type JobRecord, type QueueStore } from '../../lib/store/index.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';

afterAll(cleanupTempDirs);
afterEach(() => {
  delete process.env[BOOT_ID_ENV];
});

const record = (n: number): JobRecord =>
  newJobRecord({ id: `j-20260101-000${n}`, branch: `b${n}`, tip: 'a'.repeat(40), title: 'x', submitter: 't', urgent: false });

/** A new process's store, in boot `boot`, starting a drain. */
async function drainStart(dir: string, boot: string) {
  process.env[BOOT_ID_ENV] = boot;
  const store = await openStore(dir);
  const repair = await store.withQueueLock(() => beginUnsyncedLocked(store));
  return { store, repair };
}

const markOf = (store: QueueStore) => JSON.parse(readFileSync(store.paths.unsynced, 'utf8')) as { bootId: string; journalFrom: number };

describe('records written without fsync', () => {
  it('a mark of this boot is taken over; after a restart the records it covers are rebuilt from the journal', async () => {
    const dir = makeRepo().dir;
    const [a, b, c] = [record(1), record(2), record(3)];
    const first = await drainStart(dir, 'boot-a');
    expect(first.repair).toEqual({ checked: 0, rebuilt: [], corrupt: [], windowReset: false });
    for (const job of [a, b, c]) await first.store.withQueueLock(() => createJobLocked(first.store, job));
    const queuedB = readFileSync(first.store.paths.job(b.id), 'utf8');
    await applyChanges(first.store, [{ id: a.id, to: 'in_progress', event: 'train_started', patch: { attempts: 1 } }]);

    // Killed; the next drain in the same boot finds nothing to repair and moves the mark on.
    const second = await drainStart(dir, 'boot-a');
    expect(second.repair).toEqual({ checked: 0, rebuilt: [], corrupt: [], windowReset: false });
    expect(markOf(second.store)).toMatchObject({ bootId: 'boot-a', journalFrom: second.store.journalMark().size });
    await applyChanges(second.store, [
      { id: a.id, to: 'queued', event: 'requeued', patch: { reason: 'recovered', requeued: true } },
      { id: b.id, to: 'in_progress', event: 'train_started', patch: { attempts: 1 } },
      { id: c.id, to: 'canceled', event: 'canceled' },
    ]);
    second.store.writeWindow({ size: 4, history: [] });

    // The machine stops: a's last write reached the disk empty, b's not at all, c's whole; window.json is empty.
    writeFileSync(second.store.paths.job(a.id), '');
    writeFileSync(second.store.paths.job(b.id), queuedB);
    writeFileSync(second.store.paths.window, '');
    const third = await drainStart(dir, 'boot-b');
    const { store } = third;
    expect(third.repair).toMatchObject({ checked: 3, corrupt: [], windowReset: true });
    expect(third.repair?.rebuilt.map((job) => job.id)).toEqual([a.id, b.id]);
    for (const job of [a, b, c]) expect(store.readJob(job.id)).toEqual((foldJournal(job.id, store.readJournalOf(job.id).entries) as { job: JobRecord }).job);
    expect(store.readJob(a.id)).toMatchObject({ state: 'queued', reason: 'recovered', attempts: 1 });
    expect(store.readJob(b.id)).toMatchObject({ state: 'in_progress', attempts: 1 });
    expect(store.readJournalOf(a.id).entries.at(-1)).toMatchObject({ event: 'rebuilt', detail: { why: 'power_cut' } });
    expect(store.readWindow()).toBeNull();
    expect(markOf(store).bootId).toBe('boot-b');

    endUnsynced(store);
    expect(existsSync(store.paths.unsynced)).toBe(false);
  });

  it('after a restart, the first change (no drain yet) repairs the records first and removes the mark', async () => {
    const dir = makeRepo().dir;
    const a = record(1);
    const { store } = await drainStart(dir, 'boot-a');
    await store.withQueueLock(() => createJobLocked(store, a));
    const queued = readFileSync(store.paths.job(a.id), 'utf8');
    await applyChanges(store, [{ id: a.id, to: 'in_progress', event: 'train_started', patch: { attempts: 1 } }]);
    writeFileSync(store.paths.job(a.id), queued); // the drain's write, lost

    process.env[BOOT_ID_ENV] = 'boot-b';
    const later = await openStore(dir);
    const notes: string[] = [];
    later.note = (message) => notes.push(message);
    const [canceled] = await applyChanges(later, [{ id: a.id, from: ['in_progress'], to: 'canceled', event: 'canceled' }]);
    expect(canceled).toMatchObject({ state: 'canceled', attempts: 1 });
    expect(notes).toEqual(['the machine restarted while a drain wrote records without fsync: 1 job record(s) rebuilt from the journal']);
    expect(existsSync(later.paths.unsynced)).toBe(false);
  });
});
