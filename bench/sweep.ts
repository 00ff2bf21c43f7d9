// The culprit-rate sweep (issue 11, "Fewer gate runs"): N branches, exactly k = round(p x N)
// culprits at positions drawn with a fixed-seed PRNG, a real gate that sleeps and counts its own
// runs, drained with the real CLI under each policy. Each queue is built and submitted once per
// (p, seed) in a template repository and copied per policy, so set-up stays off the clock; a fresh
// repository has no window history, so every drain is a cold start.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { addToBranch, BenchError, buildRepo, commitPolicy, type BranchSpec } from './git.js';
import { FIXTURES, land, runSummary } from './land.js';

export interface SweepRow {
  n: number;
  p: number;
  k: number;
  policy: 'serial' | 'default';
  seeds: number;
  gateRunsPerJob: number;
  gateRunsPerLanded: number;
  boundPerJob: number;
  wallSeconds: number;
  landed: number;
  failed: number;
  wrongVerdicts: number;
}

export interface SweepOptions {
  n: number;
  batchMax: number;
  rates: readonly number[];
  seeds: number;
  gateMs: number;
  policies: readonly ('serial' | 'default')[];
  progress: (line: string) => void;
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

/** k distinct positions in 1..n (sorted), drawn with the seeded PRNG (a partial Fisher-Yates shuffle). */
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

function policyFor(opts: SweepOptions, counter: string, batchMax: number): Record<string, unknown> {
  const gate = {
    name: 'test',
    run: ['sh', join(FIXTURES, 'gates', 'slow-counted.sh')],
    timeoutSeconds: 120,
    env: { GATE_COUNTER: counter, GATE_SLEEP: String(opts.gateMs / 1000) },
  };
  return { target: 'main', gates: [gate], batch: { max: batchMax } };
}

/** The queue of one (p, seed): branches, culprit commits on k of them, all submitted in order. */
function buildTemplate(root: string, opts: SweepOptions, p: number, seedIndex: number): Template {
  const dir = join(root, `sweep-p${p}-s${seedIndex}-template`);
  mkdirSync(dir, { recursive: true });
  const counter = join(root, `sweep-gate-runs.txt`);
  const branches = sweepBranches(opts.n);
  buildRepo(dir, policyFor(opts, counter, opts.batchMax), branches);
  const k = Math.round(p * opts.n);
  const culprits = new Set<string>();
  for (const position of culpritPositions(opts.n, k, queueSeed(p, seedIndex))) {
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

/** One drain of a copy of the template under one policy; the gate counts its own runs. */
function drainCopy(root: string, opts: SweepOptions, template: Template, policy: 'serial' | 'default', name: string): Drained {
  const dir = join(root, name);
  cpSync(template.dir, dir, { recursive: true });
  if (policy === 'serial') commitPolicy(dir, policyFor(opts, template.counter, 1));
  rmSync(template.counter, { force: true });
  const run = land(dir, ['run', '--json']);
  const summary = runSummary(run.stdout);
  if (summary.queued.length) throw new BenchError(`sweep ${name}: ${summary.queued.length} job(s) still queued after the drain`);
  const branchOf = (id: string) => template.ids.get(id) ?? id;
  const wrong =
    summary.failed.filter((id) => !template.culprits.has(branchOf(id))).length + summary.landed.filter((id) => template.culprits.has(branchOf(id))).length;
  const gateRuns = countLines(template.counter);
  rmSync(dir, { recursive: true, force: true });
  return { gateRuns, landed: summary.landed.length, failed: summary.failed.length, wrong, seconds: run.ms / 1000 };
}

const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

function rowOf(opts: SweepOptions, p: number, policy: 'serial' | 'default', drains: readonly Drained[]): SweepRow {
  const sum = (pick: (d: Drained) => number) => drains.reduce((total, d) => total + pick(d), 0);
  const k = Math.round(p * opts.n);
  const landed = sum((d) => d.landed);
  return {
    n: opts.n,
    p,
    k,
    policy,
    seeds: drains.length,
    gateRunsPerJob: round(sum((d) => d.gateRuns) / (opts.n * drains.length)),
    gateRunsPerLanded: round(landed ? sum((d) => d.gateRuns) / landed : 0),
    boundPerJob: round(boundPerJob(opts.n, k)),
    wallSeconds: round(sum((d) => d.seconds) / drains.length, 2),
    landed,
    failed: sum((d) => d.failed),
    wrongVerdicts: sum((d) => d.wrong),
  };
}

/** The sweep: one row per (p, policy), each the sum or mean over `seeds` queues. */
export function measureSweep(root: string, opts: SweepOptions): SweepRow[] {
  const rows: SweepRow[] = [];
  for (const p of opts.rates) {
    const drains = new Map<'serial' | 'default', Drained[]>(opts.policies.map((policy) => [policy, []]));
    for (let seed = 0; seed < opts.seeds; seed += 1) {
      opts.progress(`sweep p=${p} seed ${seed + 1}/${opts.seeds}: building ${opts.n} branches (not timed)`);
      const template = buildTemplate(root, opts, p, seed);
      for (const policy of opts.policies) {
        const drained = drainCopy(root, opts, template, policy, `sweep-p${p}-s${seed}-${policy}`);
        opts.progress(`sweep p=${p} seed ${seed + 1} ${policy}: ${drained.gateRuns} gate runs, ${drained.seconds.toFixed(1)}s`);
        drains.get(policy)?.push(drained);
      }
      rmSync(template.dir, { recursive: true, force: true });
    }
    for (const policy of opts.policies) rows.push(rowOf(opts, p, policy, drains.get(policy) ?? []));
  }
  return rows;
}
