// Window size over time: one point per train whose metrics row records the window it left
// (`windowAfter`), joined by a line; the window's set, reset and clamp events (window.json's
// history) are marked as dashed vertical lines with what they set. Pure: History in, SVG out.
import type { History } from '../../stats/history.js';
import type { WindowHistoryEntry } from '../../store/index.js';
import { BOX, type Chart, esc, frame, linearScale, niceDomain, niceTicks, noData, num, timeDomain, timeLabel, timeTicks, xAxis, yAxis, maxOf } from '../svg.js';
import { windowAfterOf } from '../trainFacts.js';

export const WINDOW_CHART = 'window';
const TITLE = 'Window size over time';
const CAPTION =
  'One point per train (metrics.jsonl: the window each train left), joined by a line; dashed lines: the window set, reset or clamped (window.json history).';

export interface WindowPoint {
  time: number;
  size: number;
  train: string;
  verdict: string;
}

export interface WindowEvent {
  time: number;
  event: string;
  after: number;
  by: string | null;
}

export interface WindowData {
  points: WindowPoint[];
  events: WindowEvent[];
}

const PEOPLE_EVENTS: ReadonlySet<WindowHistoryEntry['event']> = new Set(['set', 'reset', 'clamp']);

export function windowData(history: History): WindowData {
  const points: WindowPoint[] = [];
  for (const train of history.trains) {
    const size = windowAfterOf(train);
    if (size !== null) points.push({ time: train.time, size, train: train.train, verdict: train.verdict });
  }
  const events: WindowEvent[] = [];
  for (const entry of history.window) {
    const time = Date.parse(entry.at);
    if (PEOPLE_EVENTS.has(entry.event) && !Number.isNaN(time)) events.push({ time, event: entry.event, after: entry.after, by: entry.by ?? null });
  }
  return { points, events };
}

export function windowChart(data: WindowData): Chart {
  const base = { name: WINDOW_CHART, title: TITLE, caption: CAPTION };
  if (data.points.length === 0) return { ...base, markup: noData(WINDOW_CHART, TITLE, 'no train has recorded its window yet'), marks: 0 };
  const box = BOX;
  const [t0, t1] = timeDomain(data.points.map((p) => p.time).concat(data.events.map((e) => e.time)));
  const x = linearScale([t0, t1], [box.left, box.width - box.right]);
  const top = niceDomain(Math.max(maxOf(data.points.map((p) => p.size)), maxOf(data.events.map((e) => e.after))) + 1, 2);
  const y = linearScale(top, [box.height - box.bottom, box.top]);
  const { ticks, step } = timeTicks(t0, t1);
  const yTicks = niceTicks(top[0], top[1], 5).filter((v) => Number.isInteger(v));
  const line = data.points.map((p) => `${num(x(p.time))},${num(y(p.size))}`).join(' ');
  const events = data.events.map((e) => {
    const at = num(x(e.time));
    const who = e.by ? ` by ${e.by}` : '';
    return (
      `<g class="event"><line x1="${at}" y1="${box.top}" x2="${at}" y2="${box.height - box.bottom}"/>` +
      `<text x="${at}" y="${box.top - 4}" text-anchor="middle">${esc(`${e.event} ${e.after}`)}</text>` +
      `<title>${esc(`${new Date(e.time).toISOString()}: window ${e.event} to ${e.after}${who}`)}</title></g>`
    );
  });
  const marks = data.points.map(
    (p) =>
      `<circle class="mark" cx="${num(x(p.time))}" cy="${num(y(p.size))}" r="4"><title>${esc(`${new Date(p.time).toISOString()}: train ${p.train} ${p.verdict}, window ${p.size}`)}</title></circle>`,
  );
  const body =
    yAxis(box, y, yTicks, String, 'window (jobs per train)') +
    xAxis(box, x, ticks, (v) => timeLabel(v, step), 'time (UTC)') +
    events.join('') +
    `<polyline class="line" points="${line}"/>` +
    marks.join('');
  return { ...base, markup: frame(WINDOW_CHART, TITLE, body, box), marks: data.points.length };
}
