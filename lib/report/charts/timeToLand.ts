// Time to land: a histogram of the landed jobs' times from submission (or the last reopen) to
// landing, as `land stats` computes them (lib/stats/jobFigures.ts landTimes). One bar per bin that holds jobs; each bar carries its count
// (data-count), so the bars' counts add up to the landed jobs drawn. Pure: History in, SVG out.
import type { History } from '../../stats/history.js';
import { landTimes } from '../../stats/jobFigures.js';
import { BOX, type Chart, durationLabel, esc, frame, linearScale, niceDomain, niceStep, niceTicks, noData, num, xAxis, yAxis, maxOf } from '../svg.js';

export const TIME_TO_LAND_CHART = 'time-to-land';
const TITLE = 'Time to land';
const CAPTION = 'Landed jobs by their time from submission (or the last land retry) to landing; each bar: how many jobs took that long.';

/** Bin widths in seconds that read well on a duration axis. */
const BIN_WIDTHS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400];

export interface TimeToLandData {
  /** Seconds from submission to landing, one per landed job with both times. */
  seconds: number[];
}

export interface Bin {
  from: number;
  to: number;
  count: number;
}

export function timeToLandData(history: History): TimeToLandData {
  // The same times as `land stats` (from the submission or the last reopen to the landing).
  return { seconds: landTimes(history.jobs).map((t) => t.seconds) };
}

/** About 12 bins of a readable width from 0 to the longest time; only the bins that hold jobs. */
export function bins(seconds: readonly number[]): Bin[] {
  const max = Math.max(0, maxOf(seconds));
  const raw = max / 12;
  const width = BIN_WIDTHS.find((w) => w >= raw) ?? niceStep(max, 12);
  const counts = new Map<number, number>();
  for (const s of seconds) {
    const index = Math.floor(s / width);
    counts.set(index, (counts.get(index) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => a[0] - b[0]).map(([index, count]) => ({ from: index * width, to: (index + 1) * width, count }));
}

export function timeToLandChart(data: TimeToLandData): Chart {
  const base = { name: TIME_TO_LAND_CHART, title: TITLE, caption: CAPTION };
  if (data.seconds.length === 0) return { ...base, markup: noData(TIME_TO_LAND_CHART, TITLE, 'no job has landed yet'), marks: 0 };
  const box = BOX;
  const drawn = bins(data.seconds);
  const last = drawn[drawn.length - 1] as Bin;
  const xStep = BIN_WIDTHS.find((w) => last.to / w <= 6) ?? niceStep(last.to, 6);
  const xTicks = Array.from({ length: Math.ceil(last.to / xStep) + 1 }, (_, i) => i * xStep);
  const x = linearScale([0, xTicks[xTicks.length - 1] as number], [box.left, box.width - box.right]);
  const yDomain = niceDomain(maxOf(drawn.map((b) => b.count)), 1);
  const y = linearScale(yDomain, [box.height - box.bottom, box.top]);
  const bars = drawn.map((bin) => {
    const left = x(bin.from);
    const width = Math.max(1, x(bin.to) - left - 1);
    const what = `${bin.count} job${bin.count === 1 ? '' : 's'} landed in ${durationLabel(bin.from)} to ${durationLabel(bin.to)}`;
    return `<rect class="mark" data-count="${bin.count}" x="${num(left + 0.5)}" y="${num(y(bin.count))}" width="${num(width)}" height="${num(y(0) - y(bin.count))}"><title>${esc(what)}</title></rect>`;
  });
  const yTicks = niceTicks(yDomain[0], yDomain[1], 5).filter((v) => Number.isInteger(v));
  const body = yAxis(box, y, yTicks, String, 'landed jobs') + xAxis(box, x, xTicks, durationLabel, 'time from submission to landing') + bars.join('');
  return { ...base, markup: frame(TIME_TO_LAND_CHART, TITLE, body, box), marks: drawn.length };
}
