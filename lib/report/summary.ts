// The figures at the top of the report: `land stats`'s own (computeStats), so the page and the
// command cannot disagree; the page (html.ts) only needs label/value pairs.
import { computeStats } from '../stats/figures.js';
import type { History } from '../stats/history.js';
import { durationLabel } from './svg.js';

export interface SummaryRow {
  label: string;
  value: string;
}

const seconds = (value: number | null) => (value === null ? '-' : durationLabel(value));

/** The summary header's rows: the period, jobs by state, failures by reason, trains, gate runs, time to land, the window. */
export function summaryRows(history: History): SummaryRow[] {
  const stats = computeStats(history);
  const { jobs, trains, gateRuns, time, culprits } = stats;
  const reasons = Object.entries(jobs.failedByReason)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
  const perLanded = gateRuns.perLandedJob === null ? '' : ` (${gateRuns.perLandedJob.toFixed(2)} per landed job)`;
  return [
    { label: 'period', value: history.since === null ? 'everything recorded' : `since ${new Date(history.since).toISOString()}` },
    { label: 'landed', value: String(jobs.landed) },
    { label: 'failed', value: `${jobs.failed}${reasons ? ` (${reasons})` : ''}` },
    { label: 'canceled', value: String(jobs.canceled) },
    { label: 'waiting or riding', value: String(jobs.queued + jobs.riding) },
    { label: 'trains judged', value: `${trains.total}${trains.abandoned ? ` (and ${trains.abandoned} abandoned)` : ''}` },
    { label: 'gate runs', value: `${gateRuns.total}${perLanded}` },
    { label: 'time to land (median, p90)', value: `${seconds(time.timeToLand.median)}, ${seconds(time.timeToLand.p90)}` },
    { label: 'culprit rate', value: culprits.rate === null ? '-' : `${(culprits.rate * 100).toFixed(1)}% (${culprits.culprits} of ${culprits.decided})` },
    { label: 'window now', value: history.windowNow === null ? '-' : `${history.windowNow}${history.windowFrom === 'drainer' ? " (the drainer's)" : ''}` },
  ];
}
