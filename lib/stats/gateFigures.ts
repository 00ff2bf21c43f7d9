// Per gate figures of `land stats` (figures.ts): how long each gate takes, and its flake history
// (flakeTally.ts, the one description of flakes that `land flaky` and the drain read too). Pure.
import type { JobRecord } from '../store/index.js';
import { flakeTally } from './flakeTally.js';
import type { HistoryTrain } from './history.js';
import { distribution, type Distribution } from './percentile.js';
import { executionsOf } from './trainRuns.js';

export interface GateFigures {
  name: string;
  /** Executions of this gate (one per gate run of a train that reached it; cached verdicts ran none). */
  runs: number;
  /** Trains that ran this gate at least once. */
  trains: number;
  /** Trees where this gate failed and a later run of the same tree passed (flakeTally.ts). */
  flakes: number;
  /** Trees where this gate failed on two runs or more and never passed: failures a re-run confirmed. */
  confirmed: number;
  /** The estimated flake rate: flakes per counted run (runs while advisory left out; rounded to 4 places); 0 when no flake is recorded. */
  flakeRate: number;
  /** Some of its runs in the period were while the policy marked it advisory (quarantined). */
  advisory: boolean;
  /** Its failures while advisory: recorded, counted in no verdict and in no flake figure. */
  uncounted: number;
  /** Seconds per execution (`gate.results[].seconds`, each run of a train with re-runs). */
  seconds: Distribution;
}

interface Tally {
  trains: Set<string>;
  seconds: number[];
}

/**
 * By gate: its executions in the metrics rows and their times, and its flakes from the rows' runs
 * plus the job records' `flaky` (a queue kept in a remote: another drainer's trains have no row
 * here, their landed jobs' records still name the flaky gate; such a train counts as one that ran it).
 */
export function gateFigures(trains: readonly HistoryTrain[], jobs: readonly JobRecord[]): GateFigures[] {
  const byGate = new Map<string, Tally>();
  const tallyOf = (name: string): Tally => {
    const known = byGate.get(name) ?? { trains: new Set<string>(), seconds: [] };
    byGate.set(name, known);
    return known;
  };
  const known = new Set<string>();
  for (const row of trains) {
    known.add(row.train);
    for (const run of executionsOf(row)) {
      known.add(run.train);
      for (const result of run.results) {
        const tally = tallyOf(result.name);
        tally.trains.add(row.train);
        if (result.seconds !== null) tally.seconds.push(result.seconds);
      }
    }
  }
  for (const { flaky } of jobs) {
    if (flaky && ![flaky.train, flaky.failed.train, flaky.passed.train].some((t) => known.has(t))) tallyOf(flaky.gate).trains.add(flaky.train);
  }
  const flakes = flakeTally(trains, jobs);
  return [...byGate.entries()]
    .map(([name, t]) => {
      const f = flakes.get(name);
      return {
        name,
        runs: f?.runs ?? 0,
        trains: t.trains.size,
        flakes: f?.flakes ?? 0,
        confirmed: f?.confirmed ?? 0,
        flakeRate: Math.round((f?.rate ?? 0) * 10_000) / 10_000,
        advisory: (f?.advisoryRuns ?? 0) > 0,
        uncounted: f?.uncounted ?? 0,
        seconds: distribution(t.seconds),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}
