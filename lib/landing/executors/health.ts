// Which executors are up: an executor that could not be reached, or whose connection was lost, is
// marked down for a while (30 s, doubled for each failure in a row, at most 10 min), then tried
// again; a run that reaches it marks it up. Pure: the drain keeps the value and passes it down.
import type { ExecutorHealthFile } from '../../store/index.js';

export const DOWN_FIRST_MS = 30_000;
export const DOWN_MAX_MS = 600_000;

export interface DownMark {
  /** When it was first found down in this run of failures, and why the latest failure happened. */
  since: number;
  reason: string;
  /** Failures in a row (1 for the first). */
  failures: number;
  /** Not offered a train before this time. */
  until: number;
}

/** Executor name → its down mark; an executor without one is up. */
export type ExecutorHealth = ReadonlyMap<string, DownMark>;

export const ALL_UP: ExecutorHealth = new Map();

/** How long the `failures`-th failure in a row keeps an executor down. */
export function downFor(failures: number): number {
  return Math.min(DOWN_MAX_MS, DOWN_FIRST_MS * 2 ** Math.max(0, failures - 1));
}

export function markDown(health: ExecutorHealth, name: string, now: number, reason: string): ExecutorHealth {
  const previous = health.get(name);
  const failures = (previous?.failures ?? 0) + 1;
  const next = new Map(health);
  next.set(name, { since: previous?.since ?? now, reason, failures, until: now + downFor(failures) });
  return next;
}

export function markUp(health: ExecutorHealth, name: string): ExecutorHealth {
  if (!health.has(name)) return health;
  const next = new Map(health);
  next.delete(name);
  return next;
}

/** Up, or down for long enough that it is tried again (the run that tries it decides). */
export function offered(health: ExecutorHealth, name: string, now: number): boolean {
  const mark = health.get(name);
  return mark === undefined || mark.until <= now;
}

/** The health as executors.json keeps it (formats/executorHealth.ts): the executors down, by name. */
export function healthFile(health: ExecutorHealth, now: number): ExecutorHealthFile {
  return { version: 1, at: new Date(now).toISOString(), down: [...health].map(([name, mark]) => ({ name, ...mark })) };
}
