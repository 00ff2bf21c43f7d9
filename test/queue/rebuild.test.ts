// A job record is the fold of its journal lines: a vanished record is rebuilt; a journal written
// before lines carried their fields cannot rebuild one and says so.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { isLandError } from '../../lib/errors.js';
import { applyChanges, createJobLocked, foldJournal, newJobRecord, recordDelta } from '../../lib/queue/index.js';
import { openStore, type JobRecord } from '../../lib/store/index.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';

afterAll(cleanupTempDirs);

const record = (id: string): JobRecord => newJobRecord({ id, branch: 'x', tip: 'a'.repeat(40), title: 'x', submitter: 't', urgent: false });

describe('journal lines rebuild records', () => {
  it('keeps only the fields a change set (and those it removed)', () => {
    const before = record('j-20260101-0001');
    const next = { ...before, state: 'in_progress' as const, attempts: 1, reason: null, fastPath: undefined, regate: true };
    expect(recordDelta(before, next)).toEqual({ set: { attempts: 1, regate: true } });
    const withFast = { ...before, regate: true };
    expect(recordDelta(withFast, { ...withFast, regate: undefined } as JobRecord)).toEqual({ set: {}, unset: ['regate'] });
  });

  it('folds the journal into the record as written, and rebuilds a deleted one (journaled as rebuilt)', async () => {
    const store = await openStore(makeRepo().dir);
    const job = record('j-20260101-0001');
    await store.withQueueLock(() => createJobLocked(store, job));
    await applyChanges(store, [
      { id: job.id, to: 'in_progress', event: 'train_started', patch: (j) => ({ attempts: j.attempts + 1, batch: null, requeued: false }) },
      { id: job.id, to: 'queued', event: 'requeued', patch: { reason: 'recovered', requeued: true } },
    ]);
    const written = store.readJob(job.id);
    expect(foldJournal(job.id, store.readJournalOf(job.id).entries)).toEqual({ ok: true, job: written });
    rmSync(store.paths.job(job.id));
    const [after] = await applyChanges(store, [{ id: job.id, to: 'canceled', event: 'canceled' }]);
    expect(after).toMatchObject({ state: 'canceled', reason: 'recovered', attempts: 1 });
    expect(store.readJournalOf(job.id).entries.map((e) => e.event)).toEqual(['submitted', 'train_started', 'requeued', 'rebuilt', 'canceled']);
  });

  it('reports a record the journal cannot rebuild as corrupt; a lenient (drainer) change skips it', async () => {
    const store = await openStore(makeRepo().dir);
    const job = record('j-20260101-0001');
    await store.withQueueLock(() => createJobLocked(store, job));
    // As an older version wrote it: no initial record on the submitted line.
    const lines = readFileSync(store.paths.journal, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    writeFileSync(store.paths.journal, `${lines.map(({ record: _, ...rest }) => JSON.stringify(rest)).join('\n')}\n`);
    rmSync(store.paths.job(job.id));
    const refused = await applyChanges(store, [{ id: job.id, to: 'canceled', event: 'canceled' }]).catch((e: unknown) => e);
    expect(isLandError(refused, 'corrupt')).toBe(true);
    expect((refused as Error).message).toMatch(/j-20260101-0001\.json is missing and the journal cannot rebuild it: .*older version/);
    expect(await applyChanges(store, [{ id: job.id, to: 'canceled', event: 'canceled', lenient: true }])).toEqual([]);
    // A job the journal never heard of is still "no job".
    const none = await applyChanges(store, [{ id: 'j-20260101-0009', to: 'canceled', event: 'canceled' }]).catch((e: unknown) => e);
    expect(isLandError(none, 'not_found')).toBe(true);
  });
});
