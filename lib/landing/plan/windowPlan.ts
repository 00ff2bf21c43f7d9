// The window: how many jobs the next train may take. Pure functions, so the benchmark and the
// tests can replay any sequence of verdicts without a repository.
//
// The size comes from the recorded culprit rate (group testing): each train that decides jobs (a
// landing, or a job failed alone) records how many jobs it decided and how many of them were
// culprits in the window history (window.json), and the window for a rate q is about
// 2^floor(log2((1-q)/q)), within batch.max. With nothing recorded it starts at batch.max.
import type { WindowHistoryEntry } from '../../store/index.js';

export type WindowEvent = 'PASS' | 'FAIL';

/** Jobs decided by trains, and how many of them were culprits (failed alone by a gate). */
export interface CulpritTally {
  jobs: number;
  culprits: number;
}

export const EMPTY_TALLY: CulpritTally = { jobs: 0, culprits: 0 };

/**
 * The prior the recorded counts are added to: one culprit in seven jobs. It keeps a few early
 * culprits from shrinking the window at once (a rate of 1 in 8 jobs keeps batch.max 8 at 4 at
 * most for a while) and lets a run of culprits bring it to 2 within about ten jobs.
 */
export const RATE_PRIOR: CulpritTally = { jobs: 7, culprits: 1 };

/** The persisted size as it applies now: never below 1, never above the policy's batch.max. */
export function clampWindow(size: number, max: number): number {
  return Math.max(1, Math.min(Math.floor(size), Math.max(1, Math.floor(max))));
}

/** A repository with no window yet starts at batch.max: most trains pass. */
export function initialWindow(max: number): number {
  return clampWindow(max, max);
}

export function addTally(a: CulpritTally, b: CulpritTally): CulpritTally {
  return { jobs: a.jobs + b.jobs, culprits: a.culprits + b.culprits };
}

/**
 * What the history records as decided, since the last `land window --reset` (which forgets the
 * rate). Entries without counts (older versions, `--set`) add nothing.
 */
export function tallyOf(history: readonly WindowHistoryEntry[]): CulpritTally {
  let total = EMPTY_TALLY;
  for (const entry of history) {
    if (entry.event === 'reset') total = EMPTY_TALLY;
    else if (entry.jobs !== undefined) total = addTally(total, { jobs: entry.jobs, culprits: entry.culprits ?? 0 });
  }
  return total;
}

/**
 * The culprit rate the window is sized from: the recorded counts plus the prior. Null while no
 * culprit is recorded (nothing decided yet, or only landings): the window stays at batch.max.
 */
export function culpritRate(tally: CulpritTally): number | null {
  if (tally.jobs <= 0 || tally.culprits <= 0) return null;
  return (tally.culprits + RATE_PRIOR.culprits) / (tally.jobs + RATE_PRIOR.jobs);
}

/**
 * The window for a culprit rate q, from the odds (1-q)/q: at least 6 (q <= 1/7) gives
 * 2^floor(log2(odds x 4/3)) (8 up to odds 12, 16 up to 24, ...), above 4.5 gives 4, at least
 * 1.5 gives pairs, and 1 only above q = 0.4; always within batch.max. This is group testing's
 * 2^floor(log2((1-q)/q)) moved where the planner's replay (plan/simulate.ts, 2000 seeded queues
 * of 64 per rate, the verdict cache included) spends the fewest gate runs: wide windows stay a
 * little longer (a cached FAIL makes bisecting them cheap), 4 is used only in a narrow band
 * (a rate estimated from a few jobs passes through it on its way to pairs), and pairs hold up
 * to q = 0.4, so an overestimated rate does not turn the queue serial. Null rate: batch.max.
 */
export function rateWindow(rate: number | null, max: number): number {
  if (rate === null || rate <= 0) return initialWindow(max);
  const odds = (1 - rate) / rate;
  if (odds >= 6) return clampWindow(2 ** Math.floor(Math.log2((odds * 4) / 3)), max);
  if (odds > 4.5) return clampWindow(4, max);
  if (odds >= 1.5) return clampWindow(2, max);
  return 1;
}

/** The window once `tally` (everything recorded, this train included) is known. */
export function windowFor(tally: CulpritTally, max: number): number {
  return rateWindow(culpritRate(tally), max);
}
