// The drawing primitives of `land report`'s charts: escaping, linear and time scales with "nice"
// ticks, axes with labels, a chart's frame and the "no data" chart. Pure: strings in, strings out.
// Every chart is an <svg data-chart="<name>"> whose data marks carry the class `mark` (a test
// counts them); what is not data (axes, grid, legend, medians, events) never does.

/** Text or an attribute value made safe for HTML and SVG: & < > " ' escaped. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A number for an SVG attribute: at most two decimals, no "-0". */
export function num(value: number): string {
  const rounded = Math.round(value * 100) / 100;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

export interface Box {
  width: number;
  height: number;
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/** The size every chart is drawn at (it scales with the page: viewBox). */
export const BOX: Box = { width: 760, height: 280, top: 40, right: 24, bottom: 48, left: 64 };

export const plotWidth = (box: Box): number => box.width - box.left - box.right;
export const plotHeight = (box: Box): number => box.height - box.top - box.bottom;

export interface Scale {
  (value: number): number;
  domain: readonly [number, number];
}

/** Maps [d0, d1] onto [r0, r1]; a domain of one value maps to the middle of the range. */
export function linearScale(domain: readonly [number, number], range: readonly [number, number]): Scale {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const scale = ((value: number) => (d1 === d0 ? (r0 + r1) / 2 : r0 + ((value - d0) / (d1 - d0)) * (r1 - r0))) as Scale;
  scale.domain = domain;
  return scale;
}

/** 1, 2 or 5 times a power of ten: the step that gives about `count` ticks over `span`. */
export function niceStep(span: number, count: number): number {
  if (!(span > 0)) return 1;
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const factor = [1, 2, 5, 10].find((f) => f * power >= raw) ?? 10;
  return factor * power;
}

/** Ticks at multiples of a nice step from lo to hi (both included when they fall on the step). */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  const step = niceStep(hi - lo, count);
  const ticks: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(Math.round(v / step) * step);
  return ticks.length > 0 ? ticks : [lo];
}

/** A domain [0, top] whose top is a nice tick at or above `max` (at least `min`). */
export function niceDomain(max: number, min = 1): [number, number] {
  const top = Math.max(max, min);
  const step = niceStep(top, 5);
  return [0, Math.ceil(top / step) * step];
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TIME_STEPS = [
  SECOND,
  5 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  7 * DAY,
  14 * DAY,
  30 * DAY,
];

/** The largest of `values` (-Infinity for none): no spread, so 100,000 values do not overflow the stack. */
export function maxOf(values: Iterable<number>): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const value of values) if (value > max) max = value;
  return max;
}

/** The smallest of `values` (Infinity for none). */
export function minOf(values: Iterable<number>): number {
  let min = Number.POSITIVE_INFINITY;
  for (const value of values) if (value < min) min = value;
  return min;
}

/** A time domain (epoch ms) around `times`, widened to a minute when they are all one instant. */
export function timeDomain(times: readonly number[]): [number, number] {
  let lo = minOf(times);
  let hi = maxOf(times);
  if (hi - lo < MINUTE) {
    const middle = (lo + hi) / 2;
    lo = middle - MINUTE / 2;
    hi = middle + MINUTE / 2;
  }
  const pad = (hi - lo) * 0.03;
  return [lo - pad, hi + pad];
}

/** Ticks on round UTC times (whole seconds, minutes, hours, days), about `count` of them. */
export function timeTicks(lo: number, hi: number, count = 6): { ticks: number[]; step: number } {
  const raw = (hi - lo) / Math.max(1, count);
  const step = TIME_STEPS.find((s) => s >= raw) ?? Math.ceil(raw / DAY) * DAY;
  const ticks: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) ticks.push(t);
  return { ticks, step };
}

/** A tick's label in UTC: "14:05:30", "14:05", "11-30 14:00" or "2026-11-30", by the step. */
export function timeLabel(ms: number, step: number): string {
  const iso = new Date(ms).toISOString();
  if (step < MINUTE) return iso.slice(11, 19);
  if (step < HOUR) return iso.slice(11, 16);
  if (step < DAY) return `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
  return iso.slice(0, 10);
}

/** "0s", "45s", "1m30s", "2h05m", "3d04h": a duration for an axis or a tooltip. */
export function durationLabel(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60 ? String(s % 60).padStart(2, '0') + 's' : ''}`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86_400)}d${String(Math.floor((s % 86_400) / 3600)).padStart(2, '0')}h`;
}

/** The x axis: a baseline, ticks with labels, and the axis' name under them. */
export function xAxis(box: Box, x: Scale, ticks: readonly number[], label: (v: number) => string, name: string): string {
  const y = box.height - box.bottom;
  const parts = [`<line class="axis" x1="${box.left}" y1="${y}" x2="${box.width - box.right}" y2="${y}"/>`];
  for (const tick of ticks) {
    const at = num(x(tick));
    parts.push(`<line class="tick" x1="${at}" y1="${y}" x2="${at}" y2="${y + 5}"/>`);
    parts.push(`<text class="tick-label" x="${at}" y="${y + 18}" text-anchor="middle">${esc(label(tick))}</text>`);
  }
  parts.push(`<text class="axis-label" x="${num(box.left + plotWidth(box) / 2)}" y="${box.height - 8}" text-anchor="middle">${esc(name)}</text>`);
  return `<g class="x-axis">${parts.join('')}</g>`;
}

/** The y axis: a baseline, ticks with labels and grid lines, and the axis' name along it. */
export function yAxis(box: Box, y: Scale, ticks: readonly number[], label: (v: number) => string, name: string): string {
  const parts = [`<line class="axis" x1="${box.left}" y1="${box.top}" x2="${box.left}" y2="${box.height - box.bottom}"/>`];
  for (const tick of ticks) {
    const at = num(y(tick));
    parts.push(`<line class="grid" x1="${box.left}" y1="${at}" x2="${box.width - box.right}" y2="${at}"/>`);
    parts.push(`<line class="tick" x1="${box.left - 5}" y1="${at}" x2="${box.left}" y2="${at}"/>`);
    parts.push(`<text class="tick-label" x="${box.left - 8}" y="${at}" text-anchor="end" dominant-baseline="middle">${esc(label(tick))}</text>`);
  }
  const middle = num(box.top + plotHeight(box) / 2);
  parts.push(`<text class="axis-label" x="14" y="${middle}" text-anchor="middle" transform="rotate(-90 14 ${middle})">${esc(name)}</text>`);
  return `<g class="y-axis">${parts.join('')}</g>`;
}

/** A legend along the top right: a swatch and a label per entry. */
export function legend(box: Box, entries: readonly { label: string; color: string }[]): string {
  let x = box.left;
  const parts = entries.map((entry) => {
    const item = `<g class="legend-item"><rect x="${num(x)}" y="${box.top - 26}" width="10" height="10" fill="${esc(entry.color)}"/><text x="${num(x + 14)}" y="${box.top - 17}">${esc(entry.label)}</text></g>`;
    x += 26 + entry.label.length * 6.5;
    return item;
  });
  return `<g class="legend">${parts.join('')}</g>`;
}

/** A chart's <svg>: its name for tests, its title for people (and screen readers), then its body. */
export function frame(name: string, title: string, body: string, box: Box = BOX): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="${esc(name)}" viewBox="0 0 ${box.width} ${box.height}" ` +
    `width="${box.width}" height="${box.height}" role="img" aria-label="${esc(title)}"><title>${esc(title)}</title>${body}</svg>`
  );
}

/** The chart of an empty data set: its frame and the words "no data", and no mark. */
export function noData(name: string, title: string, why: string, box: Box = BOX): string {
  const cx = num(box.width / 2);
  const cy = num(box.height / 2);
  return frame(
    name,
    title,
    `<rect class="plot-area" x="${box.left}" y="${box.top}" width="${plotWidth(box)}" height="${plotHeight(box)}"/>` +
      `<text class="no-data" x="${cx}" y="${cy}" text-anchor="middle">no data</text>` +
      `<text class="no-data-why" x="${cx}" y="${num(box.height / 2 + 20)}" text-anchor="middle">${esc(why)}</text>`,
    box,
  );
}

/** A chart as the page and `--json` see it: its SVG (or HTML) and how many data marks it holds. */
export interface Chart {
  name: string;
  title: string;
  /** What the chart shows and from which data, one sentence under its title. */
  caption: string;
  markup: string;
  marks: number;
}
