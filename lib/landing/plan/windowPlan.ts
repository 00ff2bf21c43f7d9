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
export interface Judged {
  jobs: number;
  culprits: number;
}

export const NOTHING_JUDGED: Judged = { jobs: 0, culprits: 0 };

/**
 * The prior the recorded counts are added to: one culprit in seven jobs. It keeps a few early
 * culprits from shrinking the window at once (a rate of 1 in 8 jobs keeps batch.max 8 at 4 at
 * most for a while) and lets a run of culprits bring it to 2 within about ten jobs.
 */
export const RATE_PRIOR: Judged = { jobs: 7, culprits: 1 };

/** The persisted size as it applies now: never below 1, never above the policy's batch.max. */
export function clampWindow(size: number, max: number): number {
  return Math.max(1, Math.min(Math.floor(size), Math.max(1, Math.floor(max))));
}

/** A repository with no window yet starts at batch.max: most trains pass. */
export function initialWindow(max: number): number {
  return clampWindow(max, max);
}

export function addJudged(a: Judged, b: Judged): Judged {
  return { jobs: a.jobs + b.jobs, culprits: a.culprits + b.culprits };
}

/**
 * What the history records as decided, since the last `land window --reset` (which forgets the
 * rate). Entries without counts (older versions, `--set`) add nothing.
 */
export function judgedIn(history: readonly WindowHistoryEntry[]): Judged {
  let total = NOTHING_JUDGED;
  for (const entry of history) {
    if (entry.event === 'reset') total = NOTHING_JUDGED;
    else if (entry.jobs !== undefined) total = addJudged(total, { jobs: entry.jobs, culprits: entry.culprits ?? 0 });
  }
  return total;
}

/**
 * The culprit rate the window is sized from: the recorded counts plus the prior. Null while no
 * culprit is recorded (nothing decided yet, or only landings): the window stays at batch.max.
 */
export function culpritRate(judged: Judged): number | null {
  if (judged.jobs <= 0 || judged.culprits <= 0) return null;
  return (judged.culprits + RATE_PRIOR.culprits) / (judged.jobs + RATE_PRIOR.jobs);
}

/**
 * The window for a culprit rate: 2^floor(log2((1-q)/q)) within batch.max (q 0.1 → 8, 0.15 → 4,
 * 0.3 → 2), and 1 only above q = 0.4: between 1/3 and 0.4 pairs still cost fewer gate runs than
 * serial, and an overestimated rate must not turn the queue serial. Null rate: batch.max.
 */
export function rateWindow(rate: number | null, max: number): number {
  if (rate === null || rate <= 0) return initialWindow(max);
  const odds = (1 - rate) / rate;
  if (odds < 1.5) return 1;
  return clampWindow(2 ** Math.floor(Math.log2(Math.max(2, odds))), max);
}

/** The window once `judged` (everything recorded, this train included) is known. */
export function windowFor(judged: Judged, max: number): number {
  return rateWindow(culpritRate(judged), max);
}
