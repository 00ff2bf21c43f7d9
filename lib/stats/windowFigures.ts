// The window figures of `land stats` (figures.ts): the window's size over time, from the metrics
// rows (each train's windowBefore -> windowAfter) and window.json's history (`land window --set`
// and `--reset`, clamps to batch.max). Pure.
import type { WindowHistoryEntry } from '../store/index.js';
import { timeOf, type History } from './history.js';
import { windowOf } from './trainRuns.js';

export interface WindowChange {
  at: string;
  /** PASS, FAIL or INFRA (a train), set, reset or clamp (window.json). */
  event: string;
  before: number;
  after: number;
  /** The train that moved it, or null. */
  train: string | null;
  /** Who set or reset it. */
  by: string | null;
}

export interface WindowFigures {
  /**
   * window.json's size now, or the drainer's (`from`); without either, the size after the latest
   * recorded train; null when no train or person ever set it.
   */
  now: number | null;
  /** `here`: this clone's window.json; `drainer`: a clone of a remote queue that drains nothing, the window after the latest published train. */
  from: 'here' | 'drainer';
  /** The size at the start of the period, then after each train and each set/reset/clamp, oldest first. */
  sizes: number[];
  /** The steps where the size moved, and every set/reset/clamp, oldest first. */
  changes: WindowChange[];
  /** Smallest and largest size in `sizes` (null when empty). */
  min: number | null;
  max: number | null;
  sets: number;
  resets: number;
  clamps: number;
}

interface Step extends WindowChange {
  time: number;
}

const PEOPLE = new Set(['set', 'reset', 'clamp']);

function entryStep(entry: WindowHistoryEntry): Step | null {
  const time = timeOf(entry.at);
  if (time === null) return null;
  return { time, at: entry.at, event: entry.event, before: entry.before, after: entry.after, train: entry.train, by: entry.by ?? null };
}

/**
 * The window's steps, oldest first: each metrics row that records its window, and window.json's
 * set/reset/clamp entries (its PASS and FAIL entries repeat the rows' and keep only the last 50).
 * Without any row that records a window (another clone's drains), window.json's entries alone.
 */
function windowSteps(history: History): Step[] {
  const steps: Step[] = [];
  for (const row of history.trains) {
    const w = windowOf(row);
    if (w) steps.push({ time: row.time, at: new Date(row.time).toISOString(), event: row.verdict, ...w, train: row.train, by: null });
  }
  const entries = steps.length ? history.window.filter((entry) => PEOPLE.has(entry.event)) : history.window;
  for (const entry of entries) {
    const step = entryStep(entry);
    if (step) steps.push(step);
  }
  // Stable: a row and an entry of the same millisecond keep the rows-first order.
  return steps.sort((a, b) => a.time - b.time);
}

export function windowFigures(history: History): WindowFigures {
  const steps = windowSteps(history);
  const sizes = steps.length ? [(steps[0] as Step).before, ...steps.map((s) => s.after)] : [];
  const changes = steps.filter((s) => s.before !== s.after || PEOPLE.has(s.event)).map(({ time: _time, ...change }) => change);
  let min: number | null = null;
  let max: number | null = null;
  for (const size of sizes) {
    min = min === null ? size : Math.min(min, size);
    max = max === null ? size : Math.max(max, size);
  }
  const count = (event: string) => steps.filter((s) => s.event === event).length;
  return {
    now: history.windowNow ?? sizes.at(-1) ?? null,
    from: history.windowFrom,
    sizes,
    changes,
    min,
    max,
    sets: count('set'),
    resets: count('reset'),
    clamps: count('clamp'),
  };
}
