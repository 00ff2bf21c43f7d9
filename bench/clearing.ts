// Optimistic clearing (policy flaky.clearing) against the same pipeline without it: N jobs with
// exactly round(p x N) culprits (the sweep's seeded queues), a gate that also fails a good tree with
// probability f per fresh run (seeded), batch.parallel 2, the default flaky rule from no history.
// Drained by `land tune`'s timed replay (lib/tune/replay.ts: the planner's functions, the pipeline
// of trains, clearing as the pipeline does it), in two queue shapes: every job submitted at once (a
// backlog), and one job every quarter of a gate time (a trickle). A replay, not real drains: the
// end-to-end test (test/landing/pipeline/parallel.test.ts) proves the drain does what it models.
import { replayDrain, type ReplayFlaky } from '../lib/tune/replay.js';
import { percentile } from '../lib/tune/replayInput.js';
import { culpritPositions, queueSeed } from './sweep.js';

export type ClearingShape = 'backlog' | 'trickle';

export interface ClearingRow {
  n: number;
  p: number;
  f: number;
  shape: ClearingShape;
  parallel: number;
  batchMax: number;
  queues: number;
  clearing: boolean;
  gateRunsPerJob: number;
  goodEjectedPer320: number;
  culpritsLanded: number;
  /** Failed trains cleared by the train behind them, per queue. */
  clearedPerQueue: number;
  /** The median time to land, in gate times, averaged over the queues. */
  p50GateTimes: number;
}

export interface ClearingOptions {
  n: number;
  batchMax: number;
  parallel: number;
  rates: readonly number[];
  flakeRates: readonly number[];
  queues: number;
}

const EVIDENCE: ReplayFlaky = { rule: 'evidence', threshold: 0.99, history: { passed: 0, flakes: 0 } };
const round3 = (value: number) => Math.round(value * 1000) / 1000;

function queueOf(n: number, p: number, seed: number, shape: ClearingShape): { submitted: number; culprit: boolean }[] {
  const at = new Set(culpritPositions(n, Math.round(p * n), queueSeed(p, seed)));
  return Array.from({ length: n }, (_, i) => ({ submitted: shape === 'trickle' ? i / 4 : 0, culprit: at.has(i + 1) }));
}

/** One row: `queues` seeded queues of one shape, each replayed with its own flake seed. */
function rowOf(opts: ClearingOptions, p: number, f: number, shape: ClearingShape, clearing: boolean): ClearingRow {
  const sum = { runs: 0, ejected: 0, landedCulprits: 0, cleared: 0, p50: 0 };
  const setting = { max: opts.batchMax, waitSeconds: 0, parallel: opts.parallel };
  for (let seed = 0; seed < opts.queues; seed += 1) {
    const jobs = queueOf(opts.n, p, seed, shape);
    const out = replayDrain(jobs, setting, 1, EVIDENCE, { rate: f, clearing, seed: queueSeed(f, seed) });
    const culprits = jobs.filter((job) => job.culprit).length;
    sum.runs += out.gateRuns;
    sum.ejected += out.ejected;
    sum.landedCulprits += culprits - (out.failed - out.ejected);
    sum.cleared += out.cleared;
    sum.p50 += percentile(
      [...out.timesToLand].sort((a, b) => a - b),
      0.5,
    );
  }
  const jobs = opts.n * opts.queues;
  return {
    ...{ n: opts.n, p, f, shape, parallel: opts.parallel, batchMax: opts.batchMax, queues: opts.queues, clearing },
    gateRunsPerJob: round3(sum.runs / jobs),
    goodEjectedPer320: round3((sum.ejected / jobs) * 320),
    culpritsLanded: sum.landedCulprits,
    clearedPerQueue: round3(sum.cleared / opts.queues),
    p50GateTimes: round3(sum.p50 / opts.queues),
  };
}

export function measureClearing(opts: ClearingOptions): ClearingRow[] {
  const rows: ClearingRow[] = [];
  for (const shape of ['backlog', 'trickle'] as const)
    for (const p of opts.rates) for (const f of opts.flakeRates) for (const clearing of [false, true]) rows.push(rowOf(opts, p, f, shape, clearing));
  return rows;
}
