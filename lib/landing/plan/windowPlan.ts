// The window: how many jobs the next train may take. Pure functions, so the benchmark and the
// tests can replay any sequence of verdicts without a repository.
//
// The size comes from the recorded culprit rate (group testing): each train that decides jobs (a
// landing, or a job failed alone) records how many jobs it decided and how many of them were
// culprits in the window history (window.json), recent jobs weighing more (culprits cluster), and
// the window for a rate q is about 1.3 x (1-q)/q, within batch.max. With nothing recorded it
// starts at batch.max. A failed train is split where the expected gate runs of its bisection are
// fewest at the rate expected (splitFor).
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

/**
 * How much one decided job's weight fades with each job decided after it. Culprits cluster (a bad
 * morning, one broken dependency): the rate that matters is the recent one, so the tally forgets
 * at this pace (weight halves after about 23 jobs). A burst of culprits shrinks the window, and
 * the clean jobs after it bring it back about three times as fast as a tally that never forgets,
 * while a steady rate over 64 jobs is estimated about as well as before.
 */
export const RATE_DECAY = 0.97;

/** `a` (what was recorded before) faded by the jobs `b` decided, plus `b`. */
export function addTally(a: CulpritTally, b: CulpritTally): CulpritTally {
  const fade = RATE_DECAY ** Math.max(0, b.jobs);
  return { jobs: a.jobs * fade + b.jobs, culprits: a.culprits * fade + b.culprits };
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
 * Below this, a faded culprit count is no culprit: the tally forgets a culprit for good once the
 * clean jobs after it faded it this far (about 100 jobs), instead of sizing the window from its
 * trace for ever (with decay alone, one culprit and 4,000 clean jobs still gave a rate of 0.023).
 */
export const FORGOTTEN_CULPRITS = 0.05;

/**
 * The culprit rate the window is sized from: the recorded counts plus the prior. Null while no
 * culprit is recorded (nothing decided yet, only landings, or culprits faded below
 * FORGOTTEN_CULPRITS): the window stays at batch.max.
 */
export function culpritRate(tally: CulpritTally): number | null {
  if (tally.jobs <= 0 || tally.culprits < FORGOTTEN_CULPRITS) return null;
  return (tally.culprits + RATE_PRIOR.culprits) / (tally.jobs + RATE_PRIOR.jobs);
}

/**
 * The culprit rate a job is expected to have, the prior included even before any culprit is
 * recorded (1/7 in a new repository, lower after clean landings): what the split of a failed
 * train is chosen from.
 */
export function expectedRate(tally: CulpritTally): number {
  return (Math.max(0, tally.culprits) + RATE_PRIOR.culprits) / (Math.max(0, tally.jobs) + RATE_PRIOR.jobs);
}

/**
 * The window for a culprit rate q, from the odds (1-q)/q: at least 4.5 (q up to 2/11) gives
 * round(1.3 x odds) (6 at odds 4.5, 8 at odds 6, 13 at odds 10), at least 1.5 gives pairs, and 1
 * only above q = 0.4; always within batch.max. This is group testing's window of about (1-q)/q
 * moved where the planner's replay (plan/simulate.ts, 2000 seeded queues per shape: 64 jobs at
 * rates 0 to 0.3, 16 and 24 jobs with 1 to 3 culprits spread, at the head or in a burst; the
 * verdict cache included) spends the fewest gate runs. Any size, not only powers of two: on a
 * short queue a window of 5 or 6 after a culprit rides what a window of 4 would split into two
 * trains. Pairs hold up to q = 0.4 (windows of 3 to 5 there cost more at p = 0.3), so an
 * overestimated rate does not turn the queue serial. Null rate: batch.max.
 */
export function rateWindow(rate: number | null, max: number): number {
  if (rate === null || rate <= 0) return initialWindow(max);
  const odds = (1 - rate) / rate;
  if (odds >= 4.5) return clampWindow(Math.round(odds * 1.3), max);
  if (odds >= 1.5) return clampWindow(2, max);
  return 1;
}

/** The window once `tally` (everything recorded, this train included) is known. */
export function windowFor(tally: CulpritTally, max: number): number {
  return rateWindow(culpritRate(tally), max);
}
