// The report's charts as pure functions of a synthetic History (no git, no browser): how many data
// marks each draws, from which data, that hostile names come out escaped, and that an empty history
// gives a page of "no data" charts.
import { describe, expect, it } from 'vitest';
import { failedJobsChart, failedJobsData, MAX_ROWS } from '../../../lib/report/charts/failedJobs.js';
import { gateDurationsChart, gateDurationsData } from '../../../lib/report/charts/gateDurations.js';
import { outcomesChart, outcomesData } from '../../../lib/report/charts/outcomes.js';
import { bins, timeToLandChart, timeToLandData } from '../../../lib/report/charts/timeToLand.js';
import { windowChart, windowData } from '../../../lib/report/charts/window.js';
import { CSP, renderReport } from '../../../lib/report/html.js';
import { summaryRows } from '../../../lib/report/summary.js';
import { esc, niceTicks, timeTicks } from '../../../lib/report/svg.js';
import { history, job, T0, train, windowEntry } from '../../helpers/reportHistory.js';

/** The data marks in a chart's markup, as a browser's `.mark` selector would find them. */
const marksIn = (markup: string): number => (markup.match(/class="mark[ "]/g) ?? []).length;

describe('the window chart', () => {
  it('draws one point per train that recorded its window, joined by a line, and marks set/reset apart', () => {
    const h = history({
      trains: [
        train('t1', 10, { members: ['j1', 'j2'], windowAfter: 5 }),
        train('t2', 20, { members: ['j3'], windowAfter: 2, verdict: 'FAIL', reason: 'gate' }),
        train('t3', 30, { members: ['j4'] }), // an old row without windowAfter: no point
        train('t4', 40, { members: ['j5'], windowAfter: 3 }),
      ],
      window: [windowEntry(5, 'set', 8, 4), windowEntry(10, 'PASS', 4, 5), windowEntry(35, 'reset', 2, 8)],
    });
    const data = windowData(h);
    expect(data.points.map((p) => p.size)).toEqual([5, 2, 3]);
    expect(data.events.map((e) => `${e.event} ${e.after}`)).toEqual(['set 4', 'reset 8']);
    const chart = windowChart(data);
    expect(chart.marks).toBe(3);
    expect(marksIn(chart.markup)).toBe(3);
    expect(chart.markup).toContain('data-chart="window"');
    expect((chart.markup.match(/<g class="event">/g) ?? []).length).toBe(2);
    expect(chart.markup).toMatch(/<polyline class="line" points="[\d.]+,[\d.]+ [\d.]+,[\d.]+ [\d.]+,[\d.]+"\/>/);
    expect(chart.markup).toContain('time (UTC)');
  });
});

describe('the time-to-land chart', () => {
  it('bins the landed jobs only; the bars count every landed job once', () => {
    const h = history({
      jobs: [
        job('j1', { state: 'landed', queued: 0, ended: 30 }),
        job('j2', { state: 'landed', queued: 0, ended: 35 }),
        job('j3', { state: 'landed', queued: 10, ended: 310 }),
        job('j4', { state: 'landed', queued: 0, ended: 600 }),
        job('j5', { state: 'failed', queued: 0, ended: 40, reason: 'gate', message: 'gate test: exit 1' }),
        job('j6', { state: 'queued', queued: 50 }),
      ],
    });
    const data = timeToLandData(h);
    expect(data.seconds.sort((a, b) => a - b)).toEqual([30, 35, 300, 600]);
    const chart = timeToLandChart(data);
    const counts = [...chart.markup.matchAll(/class="mark" data-count="(\d+)"/g)].map((m) => Number(m[1]));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(4);
    expect(chart.marks).toBe(counts.length);
    expect(marksIn(chart.markup)).toBe(chart.marks);
  });

  it('makes about a dozen bins of a readable width, only those that hold jobs', () => {
    expect(bins([0, 5, 5, 59])).toEqual([
      { from: 0, to: 5, count: 1 },
      { from: 5, to: 10, count: 2 },
      { from: 55, to: 60, count: 1 },
    ]);
    const many = bins(Array.from({ length: 1000 }, (_, i) => i * 7.2));
    expect(many.length).toBeLessThanOrEqual(13);
    expect(many.reduce((sum, bin) => sum + bin.count, 0)).toBe(1000);
  });
});

describe('the train-outcomes chart', () => {
  it('draws one mark per train and per abandoned train, each coloured by its outcome', () => {
    const h = history({
      trains: [
        train('pass', 1, { members: ['a', 'b'], results: [{ name: 'test', status: 'exit 0', seconds: 1 }] }),
        train('bisected', 2, { members: ['a', 'b', 'c'], verdict: 'FAIL', reason: 'gate' }),
        train('fail', 3, { members: ['c'], verdict: 'FAIL', reason: 'gate' }),
        train('cachedfail', 4, { members: ['c'], verdict: 'FAIL', reason: 'gate', cached: true }),
        train('fast', 5, { members: ['d'], cached: true, source: 'proof' }),
        train('infra', 6, { members: ['e', 'f'], verdict: 'INFRA', reason: 'no_lane' }),
        train('lost', 7, { members: ['e'], reason: 'cas_lost', landed: false }),
      ],
      abandoned: [{ train: 'spec', at: T0 + 8000, members: ['g', 'h'], reason: 'speculation_abandoned' }],
    });
    const points = outcomesData(h);
    expect(points.map((p) => `${p.train}:${p.outcome}`)).toEqual([
      'pass:pass',
      'bisected:bisected',
      'fail:fail',
      'cachedfail:cached',
      'fast:fast_path',
      'infra:infra',
      'lost:not_landed',
      'spec:abandoned',
    ]);
    const chart = outcomesChart(points);
    expect(chart.marks).toBe(8);
    expect(marksIn(chart.markup)).toBe(8);
    // One legend entry per outcome drawn.
    expect((chart.markup.match(/class="legend-item"/g) ?? []).length).toBe(8);
  });
});

describe('the gate-durations chart', () => {
  it('draws one point per gate per gate run: none for a cached train, each non-cached flaky re-run', () => {
    const h = history({
      trains: [
        train('t1', 1, {
          members: ['a'],
          results: [
            { name: 'test', status: 'exit 0', seconds: 12 },
            { name: 'lint', status: 'exit 0', seconds: 3 },
          ],
        }),
        train('t2', 2, { members: ['b'], cached: true }),
        train('t3', 3, {
          members: ['c'],
          runs: [
            { cached: false, results: [{ name: 'test', status: 'exit 1', seconds: 20 }] },
            { cached: false, results: [{ name: 'test', status: 'exit 0', seconds: 14 }] },
          ],
          results: [{ name: 'test', status: 'exit 0', seconds: 14 }],
        }),
      ],
    });
    const rows = gateDurationsData(h);
    expect(rows.map((r) => [r.gate, r.points.map((p) => p.seconds)])).toEqual([
      ['test', [12, 20, 14]],
      ['lint', [3]],
    ]);
    const chart = gateDurationsChart(rows);
    expect(chart.marks).toBe(4);
    expect(marksIn(chart.markup)).toBe(4);
    expect((chart.markup.match(/<line class="median"/g) ?? []).length).toBe(2);
  });
});

describe('the failed-jobs table', () => {
  it('lists failed jobs the latest first, each with its land why pointer; caps the rows and says how many more', () => {
    const jobs = Array.from({ length: MAX_ROWS + 3 }, (_, i) =>
      job(`j-${String(i).padStart(4, '0')}`, { state: 'failed', queued: i, ended: i + 1, reason: 'gate', message: `gate test: exit ${i}` }),
    );
    const data = failedJobsData(history({ jobs: [...jobs, job('ok', { state: 'landed', queued: 0, ended: 1 })] }));
    expect(data).toHaveLength(MAX_ROWS + 3);
    expect(data[0]?.id).toBe(`j-${String(MAX_ROWS + 2).padStart(4, '0')}`);
    const chart = failedJobsChart(data);
    expect(chart.marks).toBe(MAX_ROWS);
    expect(marksIn(chart.markup)).toBe(MAX_ROWS);
    expect(chart.markup).toContain(`land why j-${String(MAX_ROWS + 2).padStart(4, '0')}`);
    expect(chart.markup).toContain('and 3 earlier failed jobs');
  });
});

describe('the page', () => {
  const hostile = `<img src=x onerror=alert(1)>&"'`;

  it('escapes every name a job carries: branches, reasons, messages and gate names', () => {
    const h = history({
      jobs: [
        job('j-1', { branch: hostile, state: 'failed', queued: 0, ended: 5, reason: 'gate', message: `gate <script>alert(1)</script>: exit 1 ${hostile}` }),
      ],
      trains: [
        train('t-1', 4, {
          members: ['j-1'],
          branches: [hostile],
          verdict: 'FAIL',
          reason: 'gate',
          results: [{ name: '<script>x</script>', status: 'exit 1', seconds: 2 }],
          windowAfter: 2,
        }),
      ],
      window: [{ ...windowEntry(1, 'set', 8, 4), by: hostile }],
    });
    const { html, charts } = renderReport(h, { title: `<b>${hostile}</b>` });
    expect(html).not.toMatch(/<img|<script|<b>/i);
    expect(html).toContain(esc(hostile));
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;&#38;&#34;&#39;');
    expect(charts.map((c) => [c.name, c.marks])).toEqual([
      ['window', 1],
      ['time-to-land', 0],
      ['train-outcomes', 1],
      ['gate-durations', 1],
      ['failed-jobs', 1],
    ]);
  });

  it('loads nothing: a CSP that forbids every source, no script, no src or href', () => {
    const { html } = renderReport(
      history({ trains: [train('t', 1, { members: ['a'], windowAfter: 3, results: [{ name: 'test', status: 'exit 0', seconds: 1 }] })] }),
    );
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">`);
    expect(html).not.toMatch(/<script|\s(src|href)=|@import|url\(/i);
  });

  it('says "no history yet" and draws every chart as "no data" when nothing was recorded', () => {
    const report = renderReport(history());
    expect(report.empty).toBe(true);
    expect(report.html).toContain('no history yet: no job was submitted and no train was judged');
    for (const chart of report.charts) {
      expect(chart.marks, chart.name).toBe(0);
      expect(chart.markup, chart.name).toContain(`data-chart="${chart.name}"`);
      expect(chart.markup, chart.name).toContain('no data');
      expect(marksIn(chart.markup), chart.name).toBe(0);
    }
    expect(summaryRows(history()).find((row) => row.label === 'landed')?.value).toBe('0');
  });
});

describe('scales', () => {
  it('ticks on nice numbers and round UTC times', () => {
    expect(niceTicks(0, 10)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(0, 0.05)).toEqual([0, 0.01, 0.02, 0.03, 0.04, 0.05]);
    const { ticks, step } = timeTicks(T0 + 1000, T0 + 3_600_000);
    expect(step).toBe(15 * 60_000);
    expect(ticks.map((t) => new Date(t).toISOString().slice(11, 16))).toEqual(['10:15', '10:30', '10:45', '11:00']);
  });
});
