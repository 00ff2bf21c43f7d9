import { LandError } from '../errors.js';
import { TERMINAL_STATES, type FileStore, type JobRecord } from '../store/index.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls a job's record until it is terminal (landed, failed, canceled). */
export async function waitForJob(
  store: FileStore,
  id: string,
  opts: { timeoutSeconds?: number; pollMs?: number; onWaiting?: () => void } = {},
): Promise<JobRecord> {
  const deadline = opts.timeoutSeconds === undefined ? Infinity : Date.now() + opts.timeoutSeconds * 1000;
  let announced = false;
  for (;;) {
    const job = store.readJob(id);
    if (!job) throw new LandError('not_found', `job ${id} disappeared while waiting`);
    if (TERMINAL_STATES.includes(job.state)) return job;
    if (Date.now() > deadline) throw new LandError('not_landed', `job ${id} is still ${job.state} after ${opts.timeoutSeconds}s`);
    if (!announced) {
      opts.onWaiting?.();
      announced = true;
    }
    await sleep(opts.pollMs ?? 200);
  }
}
