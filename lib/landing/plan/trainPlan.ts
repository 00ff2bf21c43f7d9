// The scheduler's decisions as pure functions: which jobs ride the next train, how a failed
// train splits, and whether a train's verdict moves the window. The benchmark calls these too.
import type { JobRecord } from '../../store/index.js';

/** What the planner reads of a job (the simulator, plan/simulate.ts, builds only this much). */
export type PlanJob = Pick<JobRecord, 'requeued' | 'batch' | 'priority' | 'reason'>;

/** A job back at the head of the queue as part of a batch (bisection halves, a batch requeued whole). */
function inBatch(job: PlanJob): boolean {
  return job.requeued && job.batch !== null && job.priority === 'normal';
}

/**
 * Members of the next train, from the runnable jobs in landing order.
 *
 * Jobs requeued from an admitted batch are not re-admitted one window at a time:
 * - while a batch is being bisected, the most recent second half (the highest attempt among the
 *   members requeued as `bisected`) rides alone: its sibling passed, so it holds the culprit and
 *   its tree is often the failed train's tree again (a cached FAIL, no gate run);
 * - a batch requeued whole (CAS lost, recovery, a withdrawn member, a red target) rides together.
 * Once a culprit is found, the rest of its batch (`culprit_found`) knows nothing more than a fresh
 * job does: it goes through the window first, and fresh jobs fill the train up to the window.
 * Anything else takes the first `window` jobs.
 */
export function planTrain<T extends PlanJob>(runnable: readonly T[], window: number): T[] {
  const head = runnable[0];
  if (!head) return [];
  if (inBatch(head) && head.reason !== 'culprit_found') {
    const batchId = head.batch?.id;
    const group = runnable.filter((job) => inBatch(job) && job.batch?.id === batchId);
    if (head.reason === 'bisected') {
      const halves = group.filter((job) => job.reason === 'bisected');
      const deepest = Math.max(...halves.map((job) => job.batch?.attempt ?? 0));
      return halves.filter((job) => job.batch?.attempt === deepest);
    }
    return group.filter((job) => job.reason !== 'bisected');
  }
  // A fresh train never takes in the halves of another batch's bisection: they ride with their own.
  return runnable.filter((job) => !inBatch(job) || job.reason === 'culprit_found').slice(0, Math.max(1, window));
}

/** Whether a train led by `head` starts a new admitted batch (else it goes on with the head's batch). */
export function startsBatch(head: PlanJob | undefined): boolean {
  return !(head?.requeued && head.batch && head.reason !== 'culprit_found');
}

/** A failed train of two or more: the first half is gated next, the second goes back to the head. */
export function splitFailed<T>(members: readonly T[]): { first: T[]; second: T[] } {
  const half = Math.ceil(members.length / 2);
  return { first: members.slice(0, half), second: members.slice(half) };
}

/** Upper bound on gate runs to land N-1 good jobs and fail one culprit (used by the benchmark). */
export function bisectionBound(n: number): number {
  return n <= 1 ? 1 : 1 + Math.ceil(Math.log2(n)) + 1;
}
