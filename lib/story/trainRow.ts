// A metrics row (metrics.jsonl: one per train) as the failure story reads it: the stored row of
// lib/store/formats/metricsRow.ts. Rows written before trains named their branches, tips and log
// lack those fields: they are optional there, and what needs them (`land repro`) says so instead
// of guessing.
import { parseMetricsRows, storedMetricsRowSchema, type StoredGateResult, type StoredMetricsRow } from '../store/index.js';

export const trainRowSchema = storedMetricsRowSchema;
export type TrainRow = StoredMetricsRow;
export type GateResultRow = StoredGateResult;

/** The rows that have the shape of a train row; the others are counted, not thrown. */
export const parseTrainRows = parseMetricsRows;

/** A gate result that is not a pass (`exit 0`). */
export function isFailedResult(result: GateResultRow): boolean {
  return !(result.status === 'exit 0' && (result.outcome === undefined || result.outcome === 'exited'));
}

/** A failure that counted for the verdict: not a pass, of a gate the policy did not mark advisory. */
export function isCountedFailure(result: GateResultRow): boolean {
  return isFailedResult(result) && result.advisory !== true;
}

/** A failure of an advisory gate: recorded and reported, not counted (docs/policy.md#quarantine-advisory-gates). */
export function isAdvisoryFailure(result: GateResultRow): boolean {
  return isFailedResult(result) && result.advisory === true;
}
