// `land report`'s page: one self-contained HTML file. Inline CSS and inline SVG only: no script,
// no font, no image and no style loaded from anywhere, which its Content-Security-Policy also
// enforces (default-src 'none'). Every text from the state (branch names, titles, reasons,
// messages) is escaped. Pure: History in, HTML out.
import type { History } from '../stats/history.js';
import { failedJobsChart, failedJobsData } from './charts/failedJobs.js';
import { gateDurationsChart, gateDurationsData } from './charts/gateDurations.js';
import { outcomesChart, outcomesData } from './charts/outcomes.js';
import { timeToLandChart, timeToLandData } from './charts/timeToLand.js';
import { windowChart, windowData } from './charts/window.js';
import { summaryRows } from './summary.js';
import { type Chart, esc } from './svg.js';

export const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #263238; background: #fafafa; margin: 0; padding: 24px 32px; max-width: 1000px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 4px; }
.meta, .caption, .note { color: #607d8b; margin: 2px 0 10px; }
.empty { background: #fff8e1; border: 1px solid #ffe082; padding: 8px 12px; border-radius: 4px; }
table { border-collapse: collapse; background: #fff; }
td, th { border: 1px solid #e0e0e0; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #eceff1; font-weight: 600; }
table.summary td:first-child { color: #546e7a; }
table.failed td { word-break: break-word; max-width: 320px; }
svg.chart { background: #fff; border: 1px solid #e0e0e0; border-radius: 4px; max-width: 100%; height: auto; display: block; }
svg text { font: 11px system-ui, sans-serif; fill: #455a64; }
svg .axis, svg .tick { stroke: #78909c; stroke-width: 1; }
svg .grid { stroke: #eceff1; stroke-width: 1; }
svg .axis-label { font-size: 12px; fill: #37474f; }
svg .plot-area { fill: #fafafa; stroke: #eceff1; }
svg .no-data { font-size: 16px; fill: #90a4ae; } svg .no-data-why { fill: #b0bec5; }
svg .line { fill: none; stroke: #5c6bc0; stroke-width: 1.5; }
svg circle.mark { stroke: #fff; stroke-width: 1; }
svg[data-chart="window"] circle.mark { fill: #3949ab; }
svg rect.mark { fill: #7986cb; }
svg .event line { stroke: #ff7043; stroke-dasharray: 4 3; } svg .event text { fill: #e64a19; }
svg .median { stroke: #455a64; stroke-width: 2; }
p.no-data { color: #90a4ae; }
code { font: 12px ui-monospace, monospace; background: #eceff1; padding: 1px 4px; border-radius: 3px; }
`;

export interface Report {
  html: string;
  charts: Chart[];
  /** True when the history holds nothing: no job, no train, no window change. */
  empty: boolean;
}

export function isEmptyHistory(history: History): boolean {
  return history.jobs.length === 0 && history.trains.length === 0 && history.window.length === 0 && history.abandoned.length === 0;
}

/** The charts, in the page's order. */
export function reportCharts(history: History): Chart[] {
  return [
    windowChart(windowData(history)),
    timeToLandChart(timeToLandData(history)),
    outcomesChart(outcomesData(history)),
    gateDurationsChart(gateDurationsData(history)),
    failedJobsChart(failedJobsData(history)),
  ];
}

function section(chart: Chart): string {
  return `<section id="${esc(chart.name)}"><h2>${esc(chart.title)}</h2><p class="caption">${esc(chart.caption)}</p>${chart.markup}</section>`;
}

function notes(history: History, empty: boolean): string {
  const lines: string[] = [];
  if (empty) {
    const period = history.since === null ? '' : ' in this period';
    lines.push(
      `<p class="empty">no history yet${period}: no job was submitted and no train was judged. Submit branches (<code>land submit</code>) and drain the queue (<code>land run</code>), then write the report again.</p>`,
    );
  }
  if (history.corruptJobs > 0) lines.push(`<p class="note">${history.corruptJobs} job record(s) could not be read and are left out.</p>`);
  if (history.unreadableTrains > 0) lines.push(`<p class="note">${history.unreadableTrains} metrics line(s) could not be read and are left out.</p>`);
  return lines.join('');
}

/** The whole page. `title` names the repository or queue in the heading. */
export function renderReport(history: History, opts: { title?: string } = {}): Report {
  const charts = reportCharts(history);
  const empty = isEmptyHistory(history);
  const heading = opts.title ? `land report: ${opts.title}` : 'land report';
  const summary = summaryRows(history)
    .map((row) => `<tr><td>${esc(row.label)}</td><td>${esc(row.value)}</td></tr>`)
    .join('');
  const html = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(heading)}</title><style>${STYLE}</style></head><body>`,
    `<h1>${esc(heading)}</h1>`,
    `<p class="meta">written ${esc(new Date(history.readAt).toISOString())} by <code>land report</code>; all times UTC</p>`,
    notes(history, empty),
    `<table class="summary">${summary}</table>`,
    ...charts.map(section),
    '<p class="note">Jobs are every job of the queue; trains, gate runs and the window are those of the drains this clone ran (in a queue kept in a git remote, each drainer keeps its own metrics and window: see docs/report.md).</p>',
    '</body></html>',
    '',
  ].join('\n');
  return { html, charts, empty };
}
