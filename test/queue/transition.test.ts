// The job state machine: a finished job is reopened only by a person's retry or resubmit.
import { afterAll, describe, expect, it } from 'vitest';
import { applyChanges, canTransition, createJobLocked, newJobRecord } from '../../lib/queue/index.js';
import { isLandError } from '../../lib/errors.js';
import { openStore } from '../../lib/store/index.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';

afterAll(cleanupTempDirs);

describe('job transitions', () => {
  it('allows failed and canceled back to queued only through retried or resubmitted', () => {
    for (const from of ['failed', 'canceled'] as const) {
      expect(canTransition(from, 'queued', 'retried')).toBe(true);
      expect(canTransition(from, 'queued', 'resubmitted')).toBe(true);
      expect(canTransition(from, 'queued', 'requeued')).toBe(false);
      expect(canTransition(from, 'in_progress', 'retried')).toBe(false);
    }
    expect(canTransition('landed', 'queued', 'retried')).toBe(false);
    expect(canTransition('in_progress', 'queued', 'requeued')).toBe(true);
  });

  it('refuses a drainer-style requeue of a canceled record and leaves it and the journal as they were', async () => {
    const repo = makeRepo();
    const store = await openStore(repo.dir);
    const job = {
      ...newJobRecord({ id: 'j-20260101-0001', branch: 'x', tip: 'a'.repeat(40), title: 'x', submitter: 't', urgent: false }),
      state: 'canceled' as const,
    };
    await store.withQueueLock(() => createJobLocked(store, job));
    const before = store.readJournal().rows.length;
    const refused = await applyChanges(store, [{ id: job.id, to: 'queued', event: 'requeued' }]).catch((error: unknown) => error);
    expect(isLandError(refused, 'state')).toBe(true);
    expect(store.readJob(job.id)?.state).toBe('canceled');
    expect(store.readJournal().rows.length).toBe(before);
    const [reopened] = await applyChanges(store, [{ id: job.id, to: 'queued', event: 'resubmitted' }]);
    expect(reopened?.state).toBe('queued');
  });

  it('skips a change whose record no longer matches under the lock, journaling nothing', async () => {
    const repo = makeRepo();
    const store = await openStore(repo.dir);
    const job = newJobRecord({ id: 'j-20260101-0002', branch: 'y', tip: 'a'.repeat(40), title: 'y', submitter: 't', urgent: false });
    await store.withQueueLock(() => createJobLocked(store, job));
    const before = store.readJournal().rows.length;
    const skipped = await applyChanges(store, [
      { id: job.id, from: ['queued'], lenient: true, when: (j) => j.reason === 'bisected', event: 'culprit_found', patch: { reason: 'culprit_found' } },
    ]);
    expect(skipped).toEqual([]);
    expect(store.readJob(job.id)?.reason).toBeNull();
    expect(store.readJournal().rows.length).toBe(before);
    const [moved] = await applyChanges(store, [
      { id: job.id, from: ['queued'], when: (j) => j.reason === null, event: 'culprit_found', patch: { reason: 'culprit_found' } },
    ]);
    expect(moved?.reason).toBe('culprit_found');
  });
});
