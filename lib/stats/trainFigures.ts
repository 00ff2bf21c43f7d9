// The train figures of `land stats` (figures.ts): trains by outcome and the gate runs they cost. Pure.
import type { History, HistoryTrain } from './history.js';
import { sortedRecord } from './jobFigures.js';
import { executionsOf, isCachedRow } from './trainRuns.js';

export interface TrainCounts {
  /** Metrics rows (judged trains) in the period. */
  total: number;
  /** By verdict. */
  pass: number;
  fail: number;
  infra: number;
  /** Trains whose members landed. */
  landed: number;
  /** FAIL trains of 2 or more members that were split in halves (not a policy refusal). */
  bisected: number;
  /** Verdict from the verdict cache or a proof: no gate ran. */
  cached: number;
  /** One job landed alone on a proof or a cached PASS (no gate ran). */
  fastPath: number;
  /** Trains that ran a gate again after it failed (policy flaky) and passed. */
  flaky: number;
  /**
   * Trains whose run is void (not in `total`): stopped by a signal, a member canceled or stopped
   * during the gates, a speculative train behind one that did not land (their VOID rows; older
   * speculative ones from the journal).
   */
  abandoned: number;
  /** `abandoned` by reason: interrupted, withdrawn, speculation_abandoned, cleared; highest first. */
  abandonedByReason: Record<string, number>;
  /** Trains that did not land, by reason (`gate`, `target_red`, `cas_lost`, `target_dirty`, an infrastructure reason...). */
  notLandedByReason: Record<string, number>;
  /** Metrics lines that could not be read. */
  unreadable: number;
}

export interface GateRunFigures {
  /** Executions of the gate set (a cached verdict costs none; a flaky re-run costs one more). */
  total: number;
  /** total / landed jobs; null when none landed. */
  perLandedJob: number | null;
}

/** One job landed alone on a proof or a cached PASS: no gate ran. */
export function isFastPath(row: HistoryTrain): boolean {
  const source = row.gate?.source;
  return row.members.length === 1 && row.landed === true && isCachedRow(row) && (source === 'proof' || source === 'cache');
}

/** A FAIL train of 2 or more members, split in halves (a policy refusal is not bisected). */
export function isBisected(row: HistoryTrain): boolean {
  return row.verdict === 'FAIL' && row.members.length >= 2 && row.reason !== 'policy_refused';
}

export function trainCounts(history: History): TrainCounts {
  const c: TrainCounts = {
    ...{ total: history.trains.length, pass: 0, fail: 0, infra: 0, landed: 0, bisected: 0, cached: 0, fastPath: 0, flaky: 0 },
    ...{ abandoned: history.abandoned.length, abandonedByReason: {}, notLandedByReason: {}, unreadable: history.unreadableTrains },
  };
  for (const train of history.abandoned) c.abandonedByReason[train.reason] = (c.abandonedByReason[train.reason] ?? 0) + 1;
  c.abandonedByReason = sortedRecord(c.abandonedByReason);
  for (const row of history.trains) {
    if (row.verdict === 'PASS') c.pass += 1;
    else if (row.verdict === 'FAIL') c.fail += 1;
    else if (row.verdict === 'INFRA') c.infra += 1;
    if (row.landed === true) c.landed += 1;
    else {
      const reason = row.reason ?? 'unknown';
      c.notLandedByReason[reason] = (c.notLandedByReason[reason] ?? 0) + 1;
    }
    if (isBisected(row)) c.bisected += 1;
    if (isCachedRow(row)) c.cached += 1;
    if (isFastPath(row)) c.fastPath += 1;
    if (row.flaky === true) c.flaky += 1;
  }
  c.notLandedByReason = sortedRecord(c.notLandedByReason);
  return c;
}

export function gateRunFigures(trains: readonly HistoryTrain[], landedJobs: number): GateRunFigures {
  const total = trains.reduce((sum, row) => sum + executionsOf(row).length, 0);
  return { total, perLandedJob: landedJobs ? Math.round((total / landedJobs) * 1000) / 1000 : null };
}
