// The culprit-rate sweep (issue 11, "Fewer gate runs"): N branches, exactly k = round(p x N)
// culprits at positions drawn with a fixed-seed PRNG, a real gate that sleeps and counts its own
// runs, drained with the real CLI under each policy. Then the short queues (issue 23: 16 and 24
// jobs, 1 to 3 culprits) with the culprits spread, at the head of the queue or in a burst. Each queue is built and submitted once per
// (p, seed) in a template repository and copied per policy, so set-up stays off the clock; a fresh
// repository has no window history, so every drain is a cold start.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { addToBranch, BenchError, buildRepo, commitPolicy, countersFolder, type BranchSpec } from './git.js';
import { FIXTURES, land, landAsync, runSummary } from './land.js';
import { newDeterministicGate, simulateDrain } from '../lib/landing/plan/simulate.js';

/** Where a queue's k culprits are: spread at seeded positions, the first k jobs, or k consecutive jobs from a seeded start. */
export type CulpritPattern = 'uniform' | 'head' | 'burst';

export interface SweepRow {
  n: number;
  p: number;
  k: number;
  pattern: CulpritPattern;
  policy: 'serial' | 'default';
  seeds: number;
  gateRunsPerJob: number;
  gateRunsPerLanded: number;
  boundPerJob: number;
  wallSeconds: number;
  landed: number;
  failed: number;
  wrongVerdicts: number;
  /**
   * The planner's pure replay (lib/landing/plan/simulate.ts) of the same seeded queues, each a new
   * repository (the flaky rule's confirming re-runs from no history): equals gateRunsPerJob when the model holds.
   */
  simulatedPerJob: number;
  /**
   * The same replay over SIMULATED_QUEUES seeded queues, with a gate known deterministic (a history of
   * clean runs: no confirming re-run): the planner's expected gate runs per job, without the noise of
   * 5 queues and without the flaky rule's start in a new repository (the `flaky` rows measure that).
   */
  simulatedManyPerJob: number;
}

/** Queues the replay averages over for simulatedManyPerJob (pure: well under a second for all rates). */
export const SIMULATED_QUEUES = 2000;

export interface SweepOptions {
  n: number;
  batchMax: number;
  rates: readonly number[];
  seeds: number;
  /**
   * How many of the seeds the serial policy drains (default: all). Serial's gate runs per job are
   * 1 plus main's own check by construction, and its 64 one-job trains are the sweep's longest
   * drains: the full benchmark drains it on the first 2 queues per rate to stay within 10 minutes.
   */
  serialSeeds?: number;
  gateMs: number;
  policies: readonly ('serial' | 'default')[];
  /** The short-queue rows (default policy only; the head pattern is one queue, drained once). Null: none. */
  short?: ShortQueues | null;
  progress: (line: string) => void;
}

export interface ShortQueues {
  ns: readonly number[];
  ks: readonly number[];
  patterns: readonly CulpritPattern[];
  seeds: number;
}

/** One row's queues: n jobs, k culprits placed by `pattern`, `seeds` queues, drained under `policies`. */
export interface SweepShape {
  n: number;
  k: number;
  p: number;
  pattern: CulpritPattern;
  seeds: number;
  serialSeeds: number;
  policies: readonly ('serial' | 'default')[];
}

/** The rows of a sweep, in the order they run: the rates over N, then the short queues. */
export function sweepShapes(opts: Omit<SweepOptions, 'progress'>): SweepShape[] {
  const rates = opts.rates.map((p): SweepShape => {
    const k = Math.round(p * opts.n);
    return { n: opts.n, k, p, pattern: 'uniform', seeds: opts.seeds, serialSeeds: opts.serialSeeds ?? opts.seeds, policies: opts.policies };
  });
  const short = opts.short;
  if (!short) return rates;
  const shorts = short.ns.flatMap((n) =>
    short.ks.flatMap((k) =>
      short.patterns.map((pattern): SweepShape => {
        const seeds = pattern === 'head' ? 1 : short.seeds;
        return { n, k, p: k / n, pattern, seeds, serialSeeds: 0, policies: ['default'] };
      }),
    ),
  );
  return [...rates, ...shorts];
}

/** mulberry32: a small PRNG, the same sequence for the same seed on every machine. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of one queue: from the rate and the seed index only, so every policy sees the same positions. */
export function queueSeed(p: number, seedIndex: number): number {
  return (Math.round(p * 10_000) * 7919 + seedIndex * 104_729 + 12_345) >>> 0;
}

/** k distinct positions in 1..n (sorted), drawn with the seeded PRNG (a partial Fisher-Yates shuffle); the parallel part uses it too. */
export function culpritPositions(n: number, k: number, seed: number): number[] {
  const random = prng(seed);
  const pool = Array.from({ length: n }, (_, i) => i + 1);
  for (let i = 0; i < k; i += 1) {
    const j = i + Math.floor(random() * (n - i));
    [pool[i], pool[j]] = [pool[j] as number, pool[i] as number];
  }
  return pool.slice(0, k).sort((a, b) => a - b);
}

/** log2(C(n, k)) / n: the information bound on gate runs per job to identify k culprits among n. */
export function boundPerJob(n: number, k: number): number {
  let bits = 0;
  for (let i = 1; i <= k; i += 1) bits += Math.log2((n - k + i) / i);
  return n > 0 ? bits / n : 0;
}

/** The culprits' positions (1-based, sorted) in the queue of one shape and seed. */
export function positionsOf(shape: Pick<SweepShape, 'n' | 'k' | 'p' | 'pattern'>, seedIndex: number): number[] {
  const { n, k } = shape;
  const seed = queueSeed(shape.p, seedIndex);
  if (shape.pattern === 'head') return Array.from({ length: k }, (_, i) => i + 1);
  if (shape.pattern === 'uniform') return culpritPositions(n, k, seed);
  const start = culpritPositions(n - k + 1, 1, seed)[0] ?? 1;
  return Array.from({ length: k }, (_, i) => start + i);
}

const pad = (i: number) => String(i).padStart(3, '0');

function sweepBranches(n: number): BranchSpec[] {
  return Array.from({ length: n }, (_, i) => ({ name: `s${pad(i + 1)}`, file: `file-s${pad(i + 1)}.txt`, content: `line ${i + 1}\n` }));
}

interface Template {
  dir: string;
  counter: string;
  /** job id -> branch */
  ids: Map<string, string>;
  culprits: Set<string>;
}

function policyFor(opts: Pick<SweepOptions, 'gateMs'>, counter: string, batchMax: number): Record<string, unknown> {
  const gate = {
    name: 'test',
    run: ['sh', join(FIXTURES, 'gates', 'counted.sh')],
    timeoutSeconds: 120,
    env: { GATE_COUNTER: counter, GATE_SLEEP: String(opts.gateMs / 1000) },
  };
  return { target: 'main', gates: [gate], batch: { max: batchMax }, sandbox: countersFolder(dirname(counter)) };
}

const shapeName = (shape: SweepShape) => `n${shape.n}-k${shape.k}-${shape.pattern}`;

/** The queue of one (shape, seed): branches, culprit commits on k of them, all submitted in order. */
function buildTemplate(root: string, opts: SweepOptions, shape: SweepShape, seedIndex: number): Template {
  const dir = join(root, `sweep-${shapeName(shape)}-s${seedIndex}-template`);
  mkdirSync(dir, { recursive: true });
  const counter = join(root, `sweep-gate-runs.txt`);
  const branches = sweepBranches(shape.n);
  buildRepo(dir, policyFor(opts, counter, opts.batchMax), branches);
  const culprits = new Set<string>();
  for (const position of positionsOf(shape, seedIndex)) {
    const branch = branches[position - 1] as BranchSpec;
    addToBranch(dir, branch.name, `culprit-${position}`, `culprit ${position}\n`);
    culprits.add(branch.name);
  }
  const ids = new Map<string, string>();
  const lines = land(dir, ['submit', ...branches.map((b) => b.name), '--json']).stdout.split('\n');
  for (const line of lines.filter((l) => l.trim() !== '')) {
    const out = JSON.parse(line) as { job: { id: string; branch: string } };
    ids.set(out.job.id, out.job.branch);
  }
  return { dir, counter, ids, culprits };
}

interface Drained {
  gateRuns: number;
  landed: number;
  failed: number;
  wrong: number;
  seconds: number;
}

function countLines(file: string): number {
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '').length;
}

/**
 * One drain of a copy of the template under one policy; the gate counts its own runs, each
 * policy in its own counter file, since the drains of one queue run side by side.
 */
async function drainCopy(root: string, opts: Pick<SweepOptions, 'gateMs'>, template: Template, policy: 'serial' | 'default', name: string): Promise<Drained> {
  const dir = join(root, name);
  cpSync(template.dir, dir, { recursive: true });
  const counter = policy === 'serial' ? `${template.counter}.serial` : template.counter;
  if (policy === 'serial') commitPolicy(dir, policyFor(opts, counter, 1));
  rmSync(counter, { force: true });
  const run = await landAsync(dir, ['run', '--json']);
  const summary = runSummary(run.stdout);
  if (summary.queued.length) throw new BenchError(`sweep ${name}: ${summary.queued.length} job(s) still queued after the drain`);
  const branchOf = (id: string) => template.ids.get(id) ?? id;
  const wrong =
    summary.failed.filter((id) => !template.culprits.has(branchOf(id))).length + summary.landed.filter((id) => template.culprits.has(branchOf(id))).length;
  const gateRuns = countLines(counter);
  rmSync(dir, { recursive: true, force: true });
  return { gateRuns, landed: summary.landed.length, failed: summary.failed.length, wrong, seconds: run.ms / 1000 };
}

const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

function rowOf(shape: SweepShape, batchMax: number, policy: 'serial' | 'default', drains: readonly Drained[]): SweepRow {
  const sum = (pick: (d: Drained) => number) => drains.reduce((total, d) => total + pick(d), 0);
  const { n, k, p, pattern } = shape;
  const landed = sum((d) => d.landed);
  const max = policy === 'serial' ? 1 : batchMax;
  return {
    n,
    p: round(p, 4),
    k,
    pattern,
    policy,
    seeds: drains.length,
    gateRunsPerJob: round(sum((d) => d.gateRuns) / (n * drains.length)),
    gateRunsPerLanded: round(landed ? sum((d) => d.gateRuns) / landed : 0),
    boundPerJob: round(boundPerJob(n, k)),
    wallSeconds: round(sum((d) => d.seconds) / drains.length, 2),
    landed,
    failed: sum((d) => d.failed),
    wrongVerdicts: sum((d) => d.wrong),
    simulatedPerJob: round(simulatedPerJob(shape, max, seedsOf(drains.length), 'new')),
    simulatedManyPerJob: round(simulatedPerJob(shape, max, seedsOf(SIMULATED_QUEUES), 'known')),
  };
}

const seedsOf = (count: number) => Array.from({ length: count }, (_, i) => i);

/**
 * Gate runs per job of the planner's replay over the queues of the given seed indexes (positions
 * drawn as the real sweep draws them). `gate`: "new", each queue a new repository, as each real drain
 * of the sweep is (the flaky rule's confirming re-runs from no history); "known", a gate whose
 * history shows it deterministic (no re-run).
 */
export function simulatedPerJob(shape: Pick<SweepShape, 'n' | 'k' | 'p' | 'pattern'>, max: number, seeds: readonly number[], gate: 'new' | 'known'): number {
  const { n } = shape;
  let runs = 0;
  for (const seed of seeds) {
    const culprits = new Set(positionsOf(shape, seed));
    runs += simulateDrain(
      Array.from({ length: n }, (_, i) => culprits.has(i + 1)),
      max,
      gate === 'new' ? newDeterministicGate() : null,
    ).gateRuns;
  }
  return seeds.length ? runs / (n * seeds.length) : 0;
}

/**
 * The sweep: one row per (shape, policy), each the sum or mean over the shape's queues. The
 * policies' drains of one queue run side by side (two cores; this keeps the whole benchmark
 * within ten minutes): gate runs are unaffected, wall seconds include that contention.
 */
export async function measureSweep(root: string, opts: SweepOptions): Promise<SweepRow[]> {
  const rows: SweepRow[] = [];
  for (const shape of sweepShapes(opts)) {
    const drains = new Map<'serial' | 'default', Drained[]>(shape.policies.map((policy) => [policy, []]));
    for (let seed = 0; seed < shape.seeds; seed += 1) {
      const name = `${shapeName(shape)} seed ${seed + 1}/${shape.seeds}`;
      opts.progress(`sweep ${name}: building ${shape.n} branches (not timed)`);
      const template = buildTemplate(root, opts, shape, seed);
      const policies = shape.policies.filter((policy) => policy !== 'serial' || seed < shape.serialSeeds);
      const drained = await Promise.all(policies.map((policy) => drainCopy(root, opts, template, policy, `sweep-${shapeName(shape)}-s${seed}-${policy}`)));
      policies.forEach((policy, i) => {
        const one = drained[i] as Drained;
        opts.progress(`sweep ${name} ${policy}: ${one.gateRuns} gate runs, ${one.seconds.toFixed(1)}s`);
        drains.get(policy)?.push(one);
      });
      rmSync(template.dir, { recursive: true, force: true });
    }
    for (const policy of shape.policies) rows.push(rowOf(shape, opts.batchMax, policy, drains.get(policy) ?? []));
  }
  return rows;
}
