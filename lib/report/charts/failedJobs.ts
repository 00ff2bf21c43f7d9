// The failed jobs: a table (HTML, not a chart) of the jobs whose record is `failed`, the latest
// first: when, id, branch, reason, the error's message and the `land why <id>` that tells the whole
// story. Each row is a mark (class `mark`) so a test can count them. At most MAX_ROWS rows; the
// table says how many more there are. Pure: History in, HTML out.
import type { History } from '../../stats/history.js';
import { timeOf } from '../../stats/history.js';
import type { JobRecord } from '../../store/index.js';
import { type Chart, esc } from '../svg.js';

export const FAILED_JOBS_CHART = 'failed-jobs';
const TITLE = 'Failed jobs';
const CAPTION = 'Every job whose record is failed, the latest first (job records: reason, error, failed time); land why <id> tells its whole story.';
export const MAX_ROWS = 500;

export interface FailedJob {
  id: string;
  branch: string;
  reason: string;
  message: string;
  at: number | null;
}

export function failedJobsData(history: History): FailedJob[] {
  return history.jobs
    .filter((job: JobRecord) => job.state === 'failed')
    .map((job) => ({
      id: job.id,
      branch: job.branch,
      reason: job.reason ?? job.error?.code ?? '-',
      message: job.error?.message ?? '',
      at: timeOf(job.timestamps.failed),
    }))
    .sort((a, b) => (b.at ?? 0) - (a.at ?? 0) || a.id.localeCompare(b.id));
}

function row(job: FailedJob): string {
  const when = job.at === null ? '-' : new Date(job.at).toISOString().replace('T', ' ').slice(0, 19);
  const cells = [when, job.id, job.branch, job.reason, job.message].map((cell) => `<td>${esc(cell)}</td>`);
  return `<tr class="mark" data-job="${esc(job.id)}">${cells.join('')}<td><code>${esc(`land why ${job.id}`)}</code></td></tr>`;
}

export function failedJobsChart(jobs: readonly FailedJob[]): Chart {
  const base = { name: FAILED_JOBS_CHART, title: TITLE, caption: CAPTION };
  if (jobs.length === 0) {
    return { ...base, markup: `<p class="no-data" data-chart="${FAILED_JOBS_CHART}">no data: no job has failed</p>`, marks: 0 };
  }
  const shown = jobs.slice(0, MAX_ROWS);
  const more = jobs.length - shown.length;
  const head = '<thead><tr><th>failed (UTC)</th><th>job</th><th>branch</th><th>reason</th><th>error</th><th>its story</th></tr></thead>';
  const note = more > 0 ? `<p class="more">and ${more} earlier failed job${more === 1 ? '' : 's'}: <code>land status --all</code> lists them.</p>` : '';
  return {
    ...base,
    markup: `<table class="failed" data-chart="${FAILED_JOBS_CHART}">${head}<tbody>${shown.map(row).join('')}</tbody></table>${note}`,
    marks: shown.length,
  };
}
