// `land stats`: every figure, computed from a History (lib/stats/history.ts) by pure functions.
// The Stats object is `land stats --json`, what the terminal text and the OpenMetrics exposition
// render, and what `land report` summarizes. Every figure is defined in docs/stats.md.
import type { History } from './history.js';
import { gateFigures, type GateFigures } from './gateFigures.js';
import { culpritFigures, jobCounts, timeFigures, type CulpritFigures, type JobCounts, type TimeFigures } from './jobFigures.js';
import { gateRunFigures, trainCounts, type GateRunFigures, type TrainCounts } from './trainFigures.js';
import { windowFigures, type WindowFigures } from './windowFigures.js';

export type { Distribution } from './percentile.js';
export type { CulpritFigures, GateFigures, GateRunFigures, JobCounts, TimeFigures, TrainCounts, WindowFigures };
export { CULPRIT_REASONS } from './jobFigures.js';

export interface Stats {
  /** The period: from `since` (null: everything recorded) to when the history was read (ISO). */
  period: { since: string | null; until: string };
  /** True when the period holds no job, no train and no window change: "no history yet". */
  empty: boolean;
  jobs: JobCounts;
  gateRuns: GateRunFigures;
  trains: TrainCounts;
  /** Seconds: time to land, waiting and gating per landed job. */
  time: TimeFigures;
  culprits: CulpritFigures;
  /** By gate name (alphabetical). */
  gates: GateFigures[];
  window: WindowFigures;
}

export function computeStats(history: History): Stats {
  const jobs = jobCounts(history.jobs, history.corruptJobs);
  const window = windowFigures(history);
  const spent = [...history.trains, ...history.voided].sort((a, b) => a.time - b.time);
  return {
    period: { since: history.since === null ? null : new Date(history.since).toISOString(), until: new Date(history.readAt).toISOString() },
    empty: history.jobs.length === 0 && history.trains.length === 0 && window.sizes.length === 0 && history.abandoned.length === 0,
    jobs,
    // A void run's gates were spent: they count in gate runs, gate times and the gating of its members.
    gateRuns: gateRunFigures(spent, jobs.landed),
    trains: trainCounts(history),
    time: timeFigures(history.jobs, spent),
    culprits: culpritFigures(jobs),
    gates: gateFigures(spent, history.jobs),
    window,
  };
}
