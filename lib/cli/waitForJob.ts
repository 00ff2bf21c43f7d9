import { LandError } from '../errors.js';
import { TERMINAL_STATES, type JobRecord, type QueueStore } from '../store/index.js';

/**
 * Waits until a job's record is terminal (landed, failed, canceled). Between reads it waits for
 * the store's records to change (QueueStore.waitForChange): a clone's own queue watches its jobs
 * folder (polled every `pollMs` as well); a queue kept in a remote fetches every pollSeconds, so a
 * landing by another clone's drainer is seen here.
 */
export async function waitForJob(
  store: QueueStore,
  id: string,
  opts: { timeoutSeconds?: number; pollMs?: number; onWaiting?: () => void } = {},
): Promise<JobRecord> {
  const deadline = opts.timeoutSeconds === undefined ? Infinity : Date.now() + opts.timeoutSeconds * 1000;
  let announced = false;
  for (;;) {
    const since = store.jobsVersion();
    const job = store.readJob(id);
    if (!job) throw new LandError('not_found', `job ${id} disappeared while waiting`);
    if (TERMINAL_STATES.includes(job.state)) return job;
    if (Date.now() > deadline) throw new LandError('not_landed', `job ${id} is still ${job.state} after ${opts.timeoutSeconds}s`);
    if (!announced) {
      opts.onWaiting?.();
      announced = true;
    }
    const timeoutMs = deadline === Infinity ? undefined : Math.max(0, deadline - Date.now()) + 1;
    await store.waitForChange({ since, timeoutMs, pollMs: opts.pollMs ?? 200 });
  }
}
