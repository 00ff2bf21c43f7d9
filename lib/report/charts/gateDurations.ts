// Gate durations: one row per gate, one point per time that gate ran (every gate run of every
// train that was not cached: `gate.results`, or each non-cached run in `runs` for a train re-run
// as flaky), at its duration; green when it passed, red otherwise; a bar at each gate's median.
// Pure: History in, SVG out.
import type { History } from '../../stats/history.js';
import { percentile } from '../../stats/percentile.js';
import { BOX, type Box, type Chart, durationLabel, esc, frame, legend, linearScale, niceDomain, niceTicks, noData, num, xAxis, maxOf } from '../svg.js';
import { type GateResultPoint, gateResultsOf } from '../trainFacts.js';

export const GATE_DURATIONS_CHART = 'gate-durations';
const TITLE = 'Gate durations';
const CAPTION =
  "One point per gate per gate run (metrics.jsonl: each judged train's gate results, flaky re-runs included; cached verdicts ran no gate); the bar: that gate's median.";
const ROW = 40;
const PASS_COLOR = '#43a047';
const FAIL_COLOR = '#e53935';

export interface GateRow {
  gate: string;
  points: GateResultPoint[];
}

/** The gates in the order they first ran, each with every run of it. */
export function gateDurationsData(history: History): GateRow[] {
  const rows = new Map<string, GateResultPoint[]>();
  for (const train of history.trains) {
    for (const point of gateResultsOf(train)) {
      const row = rows.get(point.gate);
      if (row) row.push(point);
      else rows.set(point.gate, [point]);
    }
  }
  return [...rows.entries()].map(([gate, points]) => ({ gate, points }));
}

/** The gate's median as `land stats` gives it (nearest rank: a duration that was observed). */
function median(values: readonly number[]): number {
  return percentile(values, 50) ?? 0;
}

/** A point's vertical offset in its row: spread over the row by its index, the same on every run. */
const jitter = (index: number): number => (((index * 7) % 11) - 5) * 2.4;

function gateRow(box: Box, x: (v: number) => number, row: GateRow, index: number): string {
  const middle = box.top + index * ROW + ROW / 2;
  const label = row.gate.length > 12 ? `${row.gate.slice(0, 11)}…` : row.gate;
  const parts = [
    `<text class="tick-label" x="${box.left - 8}" y="${num(middle)}" text-anchor="end" dominant-baseline="middle">${esc(label)}<title>${esc(row.gate)}</title></text>`,
    `<line class="grid" x1="${box.left}" y1="${num(middle)}" x2="${box.width - box.right}" y2="${num(middle)}"/>`,
  ];
  row.points.forEach((p, i) => {
    const what = `${row.gate}: ${durationLabel(p.seconds)} (${p.seconds}s), ${p.status}, train ${p.train} at ${new Date(p.time).toISOString()}`;
    parts.push(
      `<circle class="mark" data-gate="${esc(row.gate)}" cx="${num(x(p.seconds))}" cy="${num(middle + jitter(i))}" r="4" fill="${p.passed ? PASS_COLOR : FAIL_COLOR}"><title>${esc(what)}</title></circle>`,
    );
  });
  const m = num(x(median(row.points.map((p) => p.seconds))));
  parts.push(
    `<line class="median" x1="${m}" y1="${num(middle - ROW / 2 + 4)}" x2="${m}" y2="${num(middle + ROW / 2 - 4)}"><title>${esc(`${row.gate}: median ${durationLabel(median(row.points.map((p) => p.seconds)))}`)}</title></line>`,
  );
  return `<g class="gate-row">${parts.join('')}</g>`;
}

export function gateDurationsChart(rows: readonly GateRow[]): Chart {
  const base = { name: GATE_DURATIONS_CHART, title: TITLE, caption: CAPTION };
  if (rows.length === 0) return { ...base, markup: noData(GATE_DURATIONS_CHART, TITLE, 'no gate has run yet'), marks: 0 };
  const box: Box = { ...BOX, left: 110, height: BOX.top + BOX.bottom + rows.length * ROW };
  const all = rows.flatMap((row) => row.points.map((p) => p.seconds));
  const domain = niceDomain(maxOf(all), 0.01);
  const x = linearScale(domain, [box.left, box.width - box.right]);
  const body =
    legend(box, [
      { label: 'passed', color: PASS_COLOR },
      { label: 'failed', color: FAIL_COLOR },
      { label: 'median', color: '#455a64' },
    ]) +
    `<line class="axis" x1="${box.left}" y1="${box.top}" x2="${box.left}" y2="${box.height - box.bottom}"/>` +
    rows.map((row, i) => gateRow(box, x, row, i)).join('') +
    xAxis(box, x, niceTicks(domain[0], domain[1], 6), (v) => (v < 60 ? `${Number(v.toPrecision(4))}s` : durationLabel(v)), 'gate duration');
  return { ...base, markup: frame(GATE_DURATIONS_CHART, TITLE, body, box), marks: all.length };
}
