// `land cancel` and `land retry`: changes a user asks for, apart from what the drainer settles.
import { LandError } from '../errors.js';
import type { FileStore, JobRecord } from '../store/index.js';
import { assertSafeId } from '../store/index.js';
import { nowIso } from './clock.js';
import { applyChangesLocked } from './transition.js';

export function readJobOrThrow(store: FileStore, id: string): JobRecord {
  assertSafeId(id);
  const job = store.readJob(id);
  if (!job) throw new LandError('not_found', `no job ${id}`, { hint: 'see `land status --all` for job ids' });
  return job;
}

export type CancelOutcome = { kind: 'canceled'; job: JobRecord } | { kind: 'stop_requested'; job: JobRecord };

export async function cancelJob(store: FileStore, id: string, by: string): Promise<CancelOutcome> {
  assertSafeId(id);
  return store.withQueueLock((): CancelOutcome => {
    const job = readJobOrThrow(store, id);
    switch (job.state) {
      case 'queued': {
        const [done] = applyChangesLocked(store, [
          {
            id,
            to: 'canceled',
            event: 'canceled',
            detail: { by },
            patch: (j) => ({ reason: 'canceled', stopRequest: null, timestamps: { ...j.timestamps, canceled: nowIso() } }),
          },
        ]);
        return { kind: 'canceled', job: done as JobRecord };
      }
      case 'in_progress': {
        const [done] = applyChangesLocked(store, [
          {
            id,
            event: 'stop_requested',
            detail: { kind: 'cancel', by },
            patch: { stopRequest: { kind: 'cancel', by, forJob: null, at: nowIso() } },
          },
        ]);
        return { kind: 'stop_requested', job: done as JobRecord };
      }
      case 'landed':
      case 'failed':
      case 'canceled':
        throw new LandError('state', `job ${id} is already ${job.state}; nothing to cancel`);
      default: {
        const never: never = job.state;
        throw new Error(`unknown state ${String(never)}`);
      }
    }
  });
}

export async function retryJob(store: FileStore, id: string, by: string): Promise<JobRecord> {
  assertSafeId(id);
  return store.withQueueLock(() => {
    const job = readJobOrThrow(store, id);
    if (job.state !== 'failed') {
      throw new LandError('state', `job ${id} is ${job.state}; only a failed job can be retried`);
    }
    const [done] = applyChangesLocked(store, [
      {
        id,
        to: 'queued',
        from: ['failed'],
        event: 'retried',
        detail: { by, previousReason: job.reason },
        patch: {
          reason: null,
          error: null,
          batch: null,
          verdict: null,
          requeued: false,
          requeues: {},
          attempts: 0,
          conflictPreview: null,
          stopRequest: null,
          // A retry asks for a fresh judgement: a cached FAIL of a train holding this job is not reused.
          regate: true,
        },
      },
    ]);
    return done as JobRecord;
  });
}
