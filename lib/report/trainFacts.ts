// What the report's charts read from one metrics row (a judged train): its window after, its
// outcome, its gate runs and their per-gate results. A row is read leniently (older rows lack
// fields; lib/store/formats/metricsRow.ts): a field that is missing or of another type is taken as absent.
import type { HistoryTrain } from '../stats/history.js';
import { gateResultField, isRecord } from '../store/index.js';
import { isBisected, isFastPath } from '../stats/trainFigures.js';
import { isCachedRow } from '../stats/trainRuns.js';

/** The window size the train left (`windowAfter`), or null when the row does not say. */
export function windowAfterOf(train: HistoryTrain): number | null {
  const value: unknown = train.windowAfter;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * One outcome per train, the first that applies: a lone job that landed on a proof or a cached
 * PASS (fast path); a verdict taken from the cache, no gate ran (cached); an infrastructure
 * failure, members requeued (infra); a FAIL of two or more members, split in halves (bisected); a
 * FAIL of one job (FAIL); a PASS that did not land (lost CAS, target moved or dirty: not landed);
 * a PASS that landed (PASS). A speculative train abandoned before it was judged has no metrics
 * row: it comes from the journal (History.abandoned) as `abandoned`.
 */
export const OUTCOMES = ['pass', 'fail', 'bisected', 'cached', 'fast_path', 'infra', 'not_landed', 'abandoned'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const OUTCOME_LABELS: Record<Outcome, string> = {
  pass: 'PASS',
  fail: 'FAIL (alone)',
  bisected: 'FAIL, bisected',
  cached: 'cached verdict',
  fast_path: 'fast path',
  infra: 'INFRA',
  not_landed: 'PASS, not landed',
  abandoned: 'abandoned',
};

/** Light colours that stay apart on white. */
export const OUTCOME_COLORS: Record<Outcome, string> = {
  pass: '#43a047',
  fail: '#e53935',
  bisected: '#fb8c00',
  cached: '#42a5f5',
  fast_path: '#26a69a',
  infra: '#ab47bc',
  not_landed: '#fdd835',
  abandoned: '#9e9e9e',
};

export function outcomeOf(train: HistoryTrain): Outcome {
  // The same fast-path, cached and bisected as `land stats` (lib/stats/trainFigures.ts).
  if (isFastPath(train)) return 'fast_path';
  if (isCachedRow(train)) return 'cached';
  if (train.verdict === 'INFRA') return 'infra';
  if (train.verdict === 'FAIL') return isBisected(train) ? 'bisected' : 'fail';
  if (train.landed === false) return 'not_landed';
  return 'pass';
}

/** One gate's run in one gate run of a train. */
export interface GateResultPoint {
  gate: string;
  seconds: number;
  passed: boolean;
  status: string;
  train: string;
  time: number;
}

/** A gate result as a row holds it: any object, its fields read one by one (gateResultField). */
type LooseResult = Record<string, unknown>;

function resultPoint(result: LooseResult, train: HistoryTrain): GateResultPoint | null {
  const name = gateResultField(result, 'name');
  const seconds = gateResultField(result, 'seconds');
  if (name === undefined || seconds === undefined) return null;
  const status = gateResultField(result, 'status') ?? '?';
  const passed = status === 'exit 0' && (result.outcome === undefined || gateResultField(result, 'outcome') === 'exited');
  return { gate: name, seconds: Math.max(0, seconds), passed, status, train: train.train, time: train.time };
}

function resultsOf(value: unknown): LooseResult[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/**
 * Every gate that ran for this train, each time it ran: a cached train ran none; a train with
 * `runs` (flaky re-runs) ran the results of each of its runs that was not cached; any other train
 * its `gate.results`.
 */
export function gateResultsOf(train: HistoryTrain): GateResultPoint[] {
  if (train.cached === true) return [];
  const runs: unknown = train.runs;
  const results = Array.isArray(runs)
    ? runs.flatMap((run: unknown) => (isRecord(run) && run.cached !== true ? resultsOf(run.results) : []))
    : resultsOf(train.gate?.results);
  return results.map((result) => resultPoint(result, train)).filter((p): p is GateResultPoint => p !== null);
}
