// A metrics row's gate runs, read leniently: `land stats` checks a row's top-level fields only
// (lib/stats/history.ts trainRowsOf), so the nested results are checked here as they are read. Pure.
import { gateResultField, isRecord } from '../store/index.js';
import type { HistoryTrain } from './history.js';

export interface RunResult {
  name: string;
  status: string | null;
  outcome: string | null;
  seconds: number | null;
  /** The policy marked the gate advisory when it ran: its failure did not count (docs/policy.md#quarantine-advisory-gates). */
  advisory: boolean;
}

/** One execution of the gate set for a train (never a cached verdict). */
export interface GateExecution {
  train: string;
  /** Its number within the train, for a row that ran its gates more than once (`runs[].run`); else null. */
  run: number | null;
  /** The log that holds this run's output (the run's, else the row's); null when none was kept. */
  log: string | null;
  results: RunResult[];
}

function resultOf(value: unknown): RunResult | null {
  if (!isRecord(value)) return null;
  const name = gateResultField(value, 'name');
  if (name === undefined) return null;
  const seconds = gateResultField(value, 'seconds');
  return {
    name,
    status: gateResultField(value, 'status') ?? null,
    // Any string: an outcome a later version names is shown as it is, not dropped.
    outcome: typeof value.outcome === 'string' ? value.outcome : null,
    seconds: seconds !== undefined && seconds >= 0 ? seconds : null,
    advisory: gateResultField(value, 'advisory') === true,
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
  const runs: unknown = row.runs;
  if (Array.isArray(runs) && runs.length > 0) {
    return runs.flatMap((run: unknown) => {
      if (!isRecord(run) || run.cached === true) return [];
      const log = typeof run.log === 'string' ? run.log : (row.log ?? null);
      const train = typeof run.train === 'string' ? run.train : row.train;
      const n = typeof run.run === 'number' && Number.isInteger(run.run) && run.run > 0 ? run.run : null;
      return [{ train, run: n, log, results: resultsOf(run.results) }];
    });
  }
  if (isCachedRow(row)) return [];
  const results: unknown = row.gate?.results;
  if (Array.isArray(results) && results.length === 0) return [];
  return [{ train: row.train, run: null, log: row.log ?? null, results: resultsOf(results) }];
}

/** A result that is a pass: `exit 0` (and exited, when the outcome is recorded). */
export function passed(result: RunResult): boolean {
  return result.status === 'exit 0' && (result.outcome === null || result.outcome === 'exited');
}

/**
 * A result that says the tree failed the gate: not a pass, and the gate ran to an end of its own
 * (a stopped run or a gate that could not start says nothing about the tree).
 */
export function failedOnTree(result: RunResult): boolean {
  return !passed(result) && result.outcome !== 'stopped' && result.outcome !== 'spawn_failed';
}

/** The row's window size before and after it, when it records them. */
export function windowOf(row: HistoryTrain): { before: number; after: number } | null {
  const ok = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  const { windowBefore, windowAfter } = row;
  return ok(windowBefore) && ok(windowAfter) ? { before: windowBefore, after: windowAfter } : null;
}
