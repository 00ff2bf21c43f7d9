// The figures at the top of the report.
//
// TO BE REPLACED (the lead): until lib/stats/figures.ts (computeStats) is merged, these few
// figures are computed here from the History. Once it is, summaryRows should read them from
// computeStats(history) so the report and `land stats` cannot disagree; the page (html.ts) only
// needs label/value pairs.
import type { History } from '../stats/history.js';
import { median } from './charts/gateDurations.js';
import { timeToLandData } from './charts/timeToLand.js';
import { durationLabel } from './svg.js';
import { gateRunsOf } from './trainFacts.js';

export interface SummaryRow {
  label: string;
  value: string;
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

/** The summary header's rows: the period, jobs by state, failures by reason, trains, gate runs, time to land, the window. */
export function summaryRows(history: History): SummaryRow[] {
  const states = countBy(history.jobs, (job) => job.state);
  const failedBy = countBy(
    history.jobs.filter((job) => job.state === 'failed'),
    (job) => job.reason ?? 'unknown',
  );
  const landed = states.get('landed') ?? 0;
  const gateRuns = history.trains.reduce((sum, train) => sum + gateRunsOf(train), 0);
  const times = timeToLandData(history).seconds;
  const reasons = [...failedBy.entries()].map(([reason, n]) => `${reason} ${n}`).join(', ');
  const waiting = (states.get('queued') ?? 0) + (states.get('in_progress') ?? 0);
  return [
    { label: 'period', value: history.since === null ? 'everything recorded' : `since ${new Date(history.since).toISOString()}` },
    { label: 'landed', value: String(landed) },
    { label: 'failed', value: `${states.get('failed') ?? 0}${reasons ? ` (${reasons})` : ''}` },
    { label: 'canceled', value: String(states.get('canceled') ?? 0) },
    { label: 'waiting or riding', value: String(waiting) },
    { label: 'trains judged', value: `${history.trains.length}${history.abandoned.length ? ` (and ${history.abandoned.length} abandoned)` : ''}` },
    { label: 'gate runs', value: `${gateRuns}${landed > 0 ? ` (${(gateRuns / landed).toFixed(2)} per landed job)` : ''}` },
    { label: 'time to land (median)', value: times.length > 0 ? durationLabel(median(times)) : '-' },
    { label: 'window now', value: history.windowNow === null ? '-' : String(history.windowNow) },
  ];
}
