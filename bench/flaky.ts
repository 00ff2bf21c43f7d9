// The flaky-gate rows (issue 24): N jobs with exactly round(p x N) culprits (the sweep's seeded
// queues), drained by the planner's replay (lib/landing/plan/simulate.ts: the real planTrain,
// settlement and re-run decision) with a gate that also fails a good tree with probability f on
// each fresh run (seeded, independent per run), under three policies: `default` (what a policy
// that says nothing about flakes gets), `flaky0` and `flaky2` (retries.flaky 0 and 2). Each row
// also drains the same queues with f = 0 (gateRunsPerJobNoFlakes), and the expected figures over
// many seeded queues. A replay, not real drains: five queues of 64 are too few to read an ejection
// rate, and the replay is the drain's own decisions (test/landing/plan/simulate.unit.test.ts and
// the pSweep rows check it against real drains).
import { parsePolicy } from '../lib/config/validate.js';
import { NO_HISTORY, simulateDrain, type SimFlakes } from '../lib/landing/plan/simulate.js';
import { culpritPositions, prng, queueSeed } from './sweep.js';

export type FlakyPolicy = 'default' | 'flaky0' | 'flaky2';

export interface FlakyFigures {
  goodEjected: number;
  culpritsLanded: number;
  gateRunsPerJob: number;
  gateRunsPerJobNoFlakes: number;
}

export interface FlakyRow extends FlakyFigures {
  n: number;
  p: number;
  f: number;
  policy: FlakyPolicy;
  seeds: number;
  source: 'replay';
  /** The same over `queues` seeded queues: good jobs ejected per 320, and the gate runs per job. */
  expected: { queues: number; goodEjectedPer320: number; gateRunsPerJob: number; gateRunsPerJobNoFlakes: number };
}

export interface FlakyOptions {
  n: number;
  batchMax: number;
  rates: readonly number[];
  flakeRates: readonly number[];
  seeds: number;
  /** Queues the expected figures average over. */
  many: number;
}

/** The flaky rule of a policy that says nothing about flakes (the schema's defaults). */
export function defaultFlakyRule(): SimFlakes['rule'] {
  const parsed = parsePolicy(JSON.stringify({ target: 'main', gates: [{ name: 'test', run: ['true'] }] }));
  if (!parsed.ok) throw new Error(`bench: the minimal policy does not parse: ${parsed.problems.join('; ')}`);
  const { flaky, retries } = parsed.policy;
  return flaky.rule === 'evidence' ? { kind: 'evidence', threshold: flaky.threshold } : { kind: 'retries', allowance: retries.flaky };
}

function ruleOf(policy: FlakyPolicy): SimFlakes['rule'] {
  if (policy === 'default') return defaultFlakyRule();
  return { kind: 'retries', allowance: policy === 'flaky2' ? 2 : 0 };
}

/** One queue's culprits: the sweep's seeded positions. */
function queueOf(n: number, p: number, seed: number): boolean[] {
  const at = new Set(culpritPositions(n, Math.round(p * n), queueSeed(p, seed)));
  return Array.from({ length: n }, (_, i) => at.has(i + 1));
}

/** Gate runs per job of the same queues with a deterministic gate, kept per (n, p, policy, seeds, batch.max): both flake rates share it. */
const deterministic = new Map<string, number>();

/**
 * The figures of `seeds` queues (seed indexes 0..seeds-1), each drained with its own seeded flake
 * draws. Queues are drained one after another in repositories of `perHistory` queues: the gate's
 * flake history carries from one queue to the next within a repository, as it does in a repository's
 * life (the first queue of each starts with no history).
 */
export function flakyFigures(n: number, p: number, f: number, policy: FlakyPolicy, seeds: number, batchMax: number, perHistory: number): FlakyFigures {
  const key = `${n} ${p} ${policy} ${seeds} ${batchMax} ${perHistory}`;
  const known = deterministic.get(key);
  let good = 0;
  let landedCulprits = 0;
  let runs = 0;
  let runsNoFlakes = 0;
  const histories = { flaky: { ...NO_HISTORY }, clean: { ...NO_HISTORY } };
  const rule = ruleOf(policy);
  for (let seed = 0; seed < seeds; seed += 1) {
    if (seed % perHistory === 0) Object.assign(histories, { flaky: { ...NO_HISTORY }, clean: { ...NO_HISTORY } });
    const culprits = queueOf(n, p, seed);
    const drain = (rate: number) =>
      simulateDrain(culprits, batchMax, {
        rate,
        random: prng(queueSeed(f, seed) ^ 0x9e3779b9),
        rule,
        history: rate > 0 ? histories.flaky : histories.clean,
      });
    const out = drain(f);
    good += out.failed.filter((i) => !culprits[i - 1]).length;
    landedCulprits += out.landed.filter((i) => culprits[i - 1]).length;
    runs += out.gateRuns;
    if (known === undefined) runsNoFlakes += drain(0).gateRuns;
  }
  const jobs = Math.max(1, n * seeds);
  if (known === undefined) deterministic.set(key, runsNoFlakes / jobs);
  const perJobNoFlakes = known ?? runsNoFlakes / jobs;
  return { goodEjected: good, culpritsLanded: landedCulprits, gateRunsPerJob: runs / jobs, gateRunsPerJobNoFlakes: perJobNoFlakes };
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

export function measureFlaky(opts: FlakyOptions): FlakyRow[] {
  const rows: FlakyRow[] = [];
  for (const p of opts.rates) {
    for (const f of opts.flakeRates) {
      for (const policy of ['default', 'flaky0', 'flaky2'] as const) {
        const few = flakyFigures(opts.n, p, f, policy, opts.seeds, opts.batchMax, opts.seeds);
        const many = flakyFigures(opts.n, p, f, policy, opts.many, opts.batchMax, opts.seeds);
        rows.push({
          n: opts.n,
          p,
          f,
          policy,
          seeds: opts.seeds,
          source: 'replay',
          ...few,
          gateRunsPerJob: round3(few.gateRunsPerJob),
          gateRunsPerJobNoFlakes: round3(few.gateRunsPerJobNoFlakes),
          expected: {
            queues: opts.many,
            goodEjectedPer320: round3((many.goodEjected / (opts.n * opts.many)) * 320),
            gateRunsPerJob: round3(many.gateRunsPerJob),
            gateRunsPerJobNoFlakes: round3(many.gateRunsPerJobNoFlakes),
          },
        });
      }
    }
  }
  return rows;
}
