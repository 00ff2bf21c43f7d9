// How the pipeline (batch.parallel above 1) spends its spare gate slots while the head gates: pure
// functions of the head's shape and the culprit rate. Each use is a bet on the head's verdict, worth
// the chance that it is the run the drain needs next:
// - `fails`: the head's own first part (splitFor) on the head's base, in case it fails (a probe);
// - `passes`: the head is a first half whose second half waits; should the head pass, that second
//   half on it is the failed train's tree again (a cached FAIL, no gate), and the run needed next is
//   the second half's own first part on the head's commit (a probe);
// - `past_culprit`: the head is a first half whose second half is one job: should the head pass,
//   that job is a culprit known to fail alone (its verdict is the cached FAIL), and the run needed
//   next is the train planned after it fails, without it, on the head's commit (a probe);
// - `behind`: the next train planned on the head's commit, in case it lands (a speculative train).
// A use less likely than WORTH to be needed is left out: an item likely to fail is not worth a slot
// behind it, and a probe of a head that will most likely pass is a run thrown away.
import { planTrain, type PlanJob } from './trainPlan.js';
import { addTally, windowFor, type CulpritTally } from './windowPlan.js';

export type SlotUse = 'fails' | 'passes' | 'past_culprit' | 'behind';

/** What the planner reads of the head. */
export interface HeadShape {
  /** Its members. */
  size: number;
  /**
   * What is known of its culprits: `fresh` (nothing: a train of the window), `first_half` (the
   * first part of a failed train, `sibling` the rest, waiting), or `holds_one` (known to hold a
   * culprit: the rest of a failed train whose first part passed).
   */
  known: 'fresh' | 'first_half' | 'holds_one';
  /** The failed train's other members (the second half waiting), for a first half; else 0. */
  sibling: number;
}

/** The least chance of being needed that is worth a slot. */
export const WORTH = 1 / 3;

/** The chance that the head fails, each job a culprit with probability `rate` independently. */
export function failChance(head: HeadShape, rate: number): number {
  if (head.known === 'holds_one') return 1;
  const r = Math.min(Math.max(rate, 0), 1);
  const clean = (n: number) => (1 - r) ** n;
  if (head.known === 'fresh') return 1 - clean(head.size);
  // A first part of a failed train: it fails when a culprit is among its members, given that the
  // whole train held at least one.
  const whole = 1 - clean(head.size + head.sibling);
  return whole > 0 ? (1 - clean(head.size)) / whole : head.size / (head.size + head.sibling);
}

/**
 * The uses worth a spare slot while this head gates, best first (the pipeline spends its spare
 * slots in that order, skipping a use with nothing to gate: no job to plan behind, a part that does
 * not build). A probe needs a part to gate: the head (or the waiting second half) must have two or
 * more members. A train behind a first half would be its second half, a cached FAIL should the
 * head pass: no use of a slot. `behind` stands for every train behind (each on the one ahead);
 * probes are one of each kind.
 */
export function slotUses(head: HeadShape, rate: number): SlotUse[] {
  const fails = failChance(head, rate);
  const uses: { use: SlotUse; worth: number }[] = [];
  if (head.size >= 2) uses.push({ use: 'fails', worth: fails });
  if (head.known === 'first_half' && head.sibling >= 2) uses.push({ use: 'passes', worth: 1 - fails });
  if (head.known === 'first_half' && head.sibling === 1) uses.push({ use: 'past_culprit', worth: 1 - fails });
  if (head.known !== 'first_half' || head.sibling === 0) uses.push({ use: 'behind', worth: 1 - fails });
  return uses
    .filter((u) => u.worth >= WORTH)
    .sort((a, b) => b.worth - a.worth)
    .map((u) => u.use);
}

/**
 * The train planned after a head of `landed` jobs lands and the lone `culprit` behind it fails
 * alone: the rest of the culprit's batch (then `culprit_found`, no longer halves) and fresh jobs,
 * through the window that landing and that culprit leave (the settlement's window moves, in order).
 */
export function trainPastCulprit<T extends PlanJob & { id: string }>(
  runnable: readonly T[],
  culprit: T,
  landed: number,
  tally: CulpritTally,
  max: number,
): T[] {
  const batchId = culprit.batch?.id;
  const after = runnable
    .filter((job) => job.id !== culprit.id)
    .map((job) => (job.requeued && job.batch?.id === batchId && job.reason === 'bisected' ? { ...job, reason: 'culprit_found' } : job));
  const window = windowFor(addTally(addTally(tally, { jobs: landed, culprits: 0 }), { jobs: 1, culprits: 1 }), max);
  return planTrain(after, window);
}
