// The scheduler's decisions as pure functions: which jobs ride the next train, how a failed
// train splits, and whether a train's verdict moves the window. The benchmark calls these too.
import type { JobRecord } from '../../store/index.js';

/**
 * Members of the next train, from the runnable jobs in landing order.
 *
 * Jobs requeued from an admitted batch are not re-admitted one window at a time:
 * - while a batch is being bisected, the most recent second half (the highest attempt among the
 *   members requeued as `bisected`) rides alone: its sibling passed, so it holds the culprit and
 *   its tree is often the failed train's tree again (a cached FAIL, no gate run);
 * - once the culprit is found (or the batch was requeued whole: CAS lost, recovery, a withdrawn
 *   member), the rest of the batch rides together.
 * Anything else takes the first `window` jobs.
 */
export function planTrain(runnable: readonly JobRecord[], window: number): JobRecord[] {
  const head = runnable[0];
  if (!head) return [];
  if (head.requeued && head.batch && head.priority === 'normal') {
    const batchId = head.batch.id;
    const group = runnable.filter((job) => job.requeued && job.batch?.id === batchId && job.priority === 'normal');
    if (head.reason === 'bisected') {
      const halves = group.filter((job) => job.reason === 'bisected');
      const deepest = Math.max(...halves.map((job) => job.batch?.attempt ?? 0));
      return halves.filter((job) => job.batch?.attempt === deepest);
    }
    return group.filter((job) => job.reason !== 'bisected');
  }
  // A fresh train never takes in the halves of another batch's bisection: they ride with their own.
  return runnable.filter((job) => !(job.requeued && job.batch && job.priority === 'normal')).slice(0, Math.max(1, window));
}

/** A failed train of two or more: the first half is gated next, the second goes back to the head. */
export function splitFailed<T>(members: readonly T[]): { first: T[]; second: T[] } {
  const half = Math.ceil(members.length / 2);
  return { first: members.slice(0, half), second: members.slice(half) };
}

/**
 * Whether a train's verdict moves the window. The window moves once per admitted batch (attempt
 * 1): +1 when it lands, halved when it fails. The bisection of a failed batch and the rebuild of
 * a requeued one do not move it again, so one culprit halves the window once. A verdict that ran
 * no gate (verdict cache, proof) says nothing about how often new trains pass: it moves nothing.
 */
export function verdictMovesWindow(attempt: number, cached = false): boolean {
  return attempt === 1 && !cached;
}

/** Upper bound on gate runs to land N-1 good jobs and fail one culprit (used by the benchmark). */
export function bisectionBound(n: number): number {
  return n <= 1 ? 1 : 1 + Math.ceil(Math.log2(n)) + 1;
}
