// The scheduler's decisions as pure functions: which jobs ride the next train, how a failed
// train splits, and whether a train's verdict moves the window. The benchmark calls these too.
import type { JobRecord } from '../../store/index.js';

/** What the planner reads of a job (the simulator, plan/simulate.ts, builds only this much). */
export type PlanJob = Pick<JobRecord, 'requeued' | 'batch' | 'priority' | 'reason'>;

/** Halves of this batch already waiting in the queue (bisection's second halves), riders excluded. */
export function waitingHalves<T extends Pick<JobRecord, 'id' | 'state' | 'requeued' | 'reason' | 'batch'>>(
  jobs: readonly T[],
  batchId: string,
  riding: readonly Pick<JobRecord, 'id'>[],
): T[] {
  const riders = new Set(riding.map((job) => job.id));
  return jobs.filter((job) => !riders.has(job.id) && job.state === 'queued' && job.requeued && job.batch?.id === batchId && job.reason === 'bisected');
}

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

/**
 * A failed train of two or more: the first part is gated next, the second goes back to the head.
 * `rate`: the culprit rate expected of one job (windowPlan.ts expectedRate). The first part's size
 * is splitFor's: half, unless the rate makes a shorter first part cheaper.
 */
export function splitFailed<T>(members: readonly T[], rate: number): { first: T[]; second: T[] } {
  const size = splitFor(members.length, rate);
  return { first: members.slice(0, size), second: members.slice(size) };
}

/**
 * How many of a failed train's m members ride first: the size that minimizes the expected gate runs
 * to find a culprit when each job is one with probability `rate` (independently) and the train is
 * known to hold at least one. A first part that passes lands, and the rest then fails from the cache
 * (no run); one that fails is split again, the rest waiting. E(1) = 0 and
 *   E(m) = 1 + min over a of [ P(a | m) E(a) + (1 - P(a | m)) E(m - a) ],
 * P(a | m) = (1 - (1-rate)^a) / (1 - (1-rate)^m), the chance the first a hold a culprit. At a
 * low rate this is halving (binary search); at a rate of 1/8 a failed 8 splits 3 + 5, and higher
 * rates try shorter first parts, which pass more often. The half (ceil(m/2)) stays unless
 * another size saves more than SPLIT_TOLERANCE runs.
 */
/** Expected gate runs a split other than the half must save to be chosen (keeps halving where the sizes are all but equal). */
const SPLIT_TOLERANCE = 0.01;

export function splitFor(m: number, rate: number): number {
  const half = Math.ceil(m / 2);
  if (m <= 2 || !(rate > 0 && rate < 1)) return Math.max(1, Math.min(half, m - 1));
  const clean = (n: number) => (1 - rate) ** n;
  const expected = [0, 0];
  let best = half;
  for (let n = 2; n <= m; n += 1) {
    let least = Number.POSITIVE_INFINITY;
    const order = [Math.ceil(n / 2), ...Array.from({ length: n - 1 }, (_, i) => i + 1)];
    for (const a of order) {
      const failsFirst = (1 - clean(a)) / (1 - clean(n));
      const cost = 1 + failsFirst * (expected[a] as number) + (1 - failsFirst) * (expected[n - a] as number);
      if (cost < least - SPLIT_TOLERANCE) {
        least = cost;
        if (n === m) best = a;
      }
    }
    expected[n] = least;
  }
  return best;
}

/** Upper bound on gate runs to land N-1 good jobs and fail one culprit (used by the benchmark). */
export function bisectionBound(n: number): number {
  return n <= 1 ? 1 : 1 + Math.ceil(Math.log2(n)) + 1;
}
