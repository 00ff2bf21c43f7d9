// A metrics row's gate runs, read leniently: rows are parsed by lib/story/trainRow.ts, which keeps
// `runs` (flaky re-runs) as an unknown extra field. Pure.
import type { HistoryTrain } from './history.js';

export interface RunResult {
  name: string;
  status: string | null;
  outcome: string | null;
  seconds: number | null;
}

/** One execution of the gate set for a train (never a cached verdict). */
export interface GateExecution {
  train: string;
  results: RunResult[];
}

function resultOf(value: unknown): RunResult | null {
  if (typeof value !== 'object' || value === null) return null;
  const r = value as Record<string, unknown>;
  if (typeof r.name !== 'string') return null;
  return {
    name: r.name,
    status: typeof r.status === 'string' ? r.status : null,
    outcome: typeof r.outcome === 'string' ? r.outcome : null,
    seconds: typeof r.seconds === 'number' && Number.isFinite(r.seconds) && r.seconds >= 0 ? r.seconds : null,
  };
}

function resultsOf(value: unknown): RunResult[] {
  return Array.isArray(value) ? value.map(resultOf).filter((r): r is RunResult => r !== null) : [];
}

/** True when no gate ran for the row: its verdict came from the verdict cache or a proof. */
export function isCachedRow(row: HistoryTrain): boolean {
  return row.cached === true || row.gate?.mode === 'cached';
}

/**
 * Every gate run of a row, oldest first: its `runs` that were not cached when it ran more than
 * once (flaky re-runs), else one run with `gate.results` unless its verdict was cached or its
 * telemetry lists no gate that ran (a refresh entry or the train's worktree failed first). A row
 * written before gate results were recorded counts as one run unless cached.
 */
export function executionsOf(row: HistoryTrain): GateExecution[] {
  const runs = (row as Record<string, unknown>).runs;
  if (Array.isArray(runs) && runs.length > 0) {
    return runs.flatMap((run) => {
      if (typeof run !== 'object' || run === null || (run as { cached?: unknown }).cached === true) return [];
      const r = run as Record<string, unknown>;
      return [{ train: typeof r.train === 'string' ? r.train : row.train, results: resultsOf(r.results) }];
    });
  }
  if (isCachedRow(row)) return [];
  const results = row.gate?.results;
  if (Array.isArray(results) && results.length === 0) return [];
  return [{ train: row.train, results: resultsOf(results) }];
}

/** A result that is a pass: `exit 0` (and exited, when the outcome is recorded). */
export function passed(result: RunResult): boolean {
  return result.status === 'exit 0' && (result.outcome === null || result.outcome === 'exited');
}

/** The row's window size before and after it, when it records them. */
export function windowOf(row: HistoryTrain): { before: number; after: number } | null {
  const r = row as Record<string, unknown>;
  const ok = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  return ok(r.windowBefore) && ok(r.windowAfter) ? { before: r.windowBefore, after: r.windowAfter } : null;
}
