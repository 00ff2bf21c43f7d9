// The job ids a completion offers after a command: the ones that command can act on.
import { displayOrder } from '../../queue/index.js';
import type { JobRecord, JobState } from '../../store/index.js';

const STATES_FOR: Record<string, readonly JobState[]> = {
  cancel: ['queued', 'in_progress'],
  retry: ['failed', 'canceled'],
  reconcile: ['uncertain'],
};

/** Ids in display order (running, queued in landing order, then finished ones newest first). */
export function completionIds(jobs: readonly JobRecord[], command = ''): string[] {
  const states = STATES_FOR[command];
  return displayOrder(jobs)
    .filter((job) => !states || states.includes(job.state))
    .map((job) => job.id);
}
