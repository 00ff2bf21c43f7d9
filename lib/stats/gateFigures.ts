// Per gate figures of `land stats` (figures.ts): how long each gate takes and how often it flakes. Pure.
import type { JobRecord } from '../store/index.js';
import type { HistoryTrain } from './history.js';
import { distribution, type Distribution } from './percentile.js';
import { executionsOf, passed, type GateExecution } from './trainRuns.js';

export interface GateFigures {
  name: string;
  /** Executions of this gate (one per gate run of a train that reached it). */
  runs: number;
  /** Trains that ran this gate at least once. */
  trains: number;
  /** Trains where this gate failed and a re-run of the same tree passed (policy retries.flaky). */
  flakes: number;
  /** flakes / trains; null when no train ran it. */
  flakeRate: number | null;
  /** Seconds per execution (`gate.results[].seconds`, each run of a train with re-runs). */
  seconds: Distribution;
}

interface Tally {
  runs: number;
  trains: Set<string>;
  flakes: Set<string>;
  seconds: number[];
}

/** Gates of `executions` that failed in one run and passed in a later one. */
function flakedGates(executions: readonly GateExecution[]): Set<string> {
  const failedBefore = new Set<string>();
  const flaked = new Set<string>();
  for (const run of executions) {
    for (const result of run.results) {
      if (!passed(result)) failedBefore.add(result.name);
      else if (failedBefore.has(result.name)) flaked.add(result.name);
    }
  }
  return flaked;
}

function tallyOf(byGate: Map<string, Tally>, name: string): Tally {
  let tally = byGate.get(name);
  if (!tally) {
    tally = { runs: 0, trains: new Set(), flakes: new Set(), seconds: [] };
    byGate.set(name, tally);
  }
  return tally;
}

/**
 * By gate: its executions in the metrics rows, and its flakes from the rows' runs plus the job
 * records' `flaky` (a queue kept in a remote: another drainer's trains have no row here, their
 * landed jobs' records still name the flaky gate; such a train counts as one that ran the gate).
 */
export function gateFigures(trains: readonly HistoryTrain[], jobs: readonly JobRecord[]): GateFigures[] {
  const byGate = new Map<string, Tally>();
  const knownTrains = new Set<string>();
  for (const row of trains) {
    const executions = executionsOf(row);
    knownTrains.add(row.train);
    for (const run of executions) knownTrains.add(run.train);
    for (const run of executions) {
      for (const result of run.results) {
        const tally = tallyOf(byGate, result.name);
        tally.runs += 1;
        tally.trains.add(row.train);
        if (result.seconds !== null) tally.seconds.push(result.seconds);
      }
    }
    for (const name of flakedGates(executions)) tallyOf(byGate, name).flakes.add(row.train);
  }
  for (const job of jobs) {
    const flaky = job.flaky;
    if (!flaky) continue;
    const names = [flaky.train, flaky.failed.train, flaky.passed.train];
    if (names.some((name) => knownTrains.has(name))) continue;
    const tally = tallyOf(byGate, flaky.gate);
    tally.trains.add(flaky.train);
    tally.flakes.add(flaky.train);
  }
  return [...byGate.entries()]
    .map(([name, t]) => ({
      name,
      runs: t.runs,
      trains: t.trains.size,
      flakes: t.flakes.size,
      flakeRate: t.trains.size ? Math.round((t.flakes.size / t.trains.size) * 10_000) / 10_000 : null,
      seconds: distribution(t.seconds),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
