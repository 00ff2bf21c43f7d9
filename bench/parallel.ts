// The parallel figure: one queue of N one-line branches, exactly k = round(p x N) of them culprits
// at positions drawn from a fixed seed, under a gate that sleeps; `land run` drains a copy of it
// with `batch.parallel` 1 and another with `batch.parallel` 2 (default policy otherwise). A run
// that land refuses (for example a build without `batch.parallel`) is reported, not thrown.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BenchError, buildRepo, commitPolicy, countersFolder, type BranchSpec } from './git.js';
import { land, runSummary } from './land.js';
import { culpritPositions } from './sweep.js';

export interface ParallelRun {
  parallel: number;
  wallSeconds: number;
  /** Gate processes started (lines in the start file), abandoned speculative ones included. */
  gateRuns: number;
  /** Gate processes that slept to the end and judged the tree. */
  gateRunsFinished: number;
  trains: number;
  landed: number;
  failed: number;
  /** Culprits land did not fail plus good branches it did not land (0 when the verdicts are right). */
  wrongVerdicts: number;
}

/** The sleeping-gate queue a row drained (prepareSleepQueue): its size, culprit rate and positions, seed and gate time. */
export interface SleepQueueShape {
  n: number;
  p: number;
  k: number;
  seed: number;
  gateSeconds: number;
  culprits: number[];
}

export interface ParallelRow extends SleepQueueShape {
  wallSeconds1: number | null;
  wallSeconds2: number | null;
  /** wallSeconds2 / wallSeconds1 (the goal: at most 0.65). */
  ratio: number | null;
  gateRuns1: number | null;
  gateRuns2: number | null;
  runs: ParallelRun[];
  /** Why a run is missing (its figures are null then). */
  error?: string;
}

export interface ParallelOptions {
  n: number;
  p: number;
  seed: number;
  gateSeconds: number;
  progress: (line: string) => void;
}

// The gate: counts its start, sleeps $1 seconds, fails when the train carries a culprit-* file,
// counts its end. argv, no quoting of paths: the files come through the environment. The
// executors row (bench/executors.ts) drains the same queue with the same gate.
export const GATE_SCRIPT = [
  'echo "$LAND_JOB" >> "$GATE_STARTS"',
  'sleep "$1"',
  'for f in culprit-*; do if [ -e "$f" ]; then echo "found $f: failing"; echo "$LAND_JOB" >> "$GATE_ENDS"; exit 1; fi; done',
  'echo "$LAND_JOB" >> "$GATE_ENDS"',
  'echo "no culprit: passing"',
].join('\n');

export function branches(n: number, culprits: ReadonlySet<number>): BranchSpec[] {
  return Array.from({ length: n }, (_, i) => {
    const name = `b${String(i + 1).padStart(2, '0')}`;
    // A culprit's one commit adds a culprit-* file, which is what makes the gate fail.
    return { name, file: culprits.has(i + 1) ? `culprit-${name}.txt` : `file-${name}.txt`, content: `line ${i + 1}\n` };
  });
}

export function lines(path: string): number {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '').length
    : 0;
}

/** Submits every branch in order with one `land submit`; returns job id -> branch position (1..n). */
export function submitAll(dir: string, specs: readonly BranchSpec[]): Map<string, number> {
  const out = land(dir, ['submit', ...specs.map((b) => b.name), '--json']).stdout;
  const positions = new Map<string, number>();
  for (const line of out.split('\n').filter((l) => l.trim() !== '')) {
    const { job } = JSON.parse(line) as { job: { id: string; branch: string } };
    positions.set(job.id, specs.findIndex((b) => b.name === job.branch) + 1);
  }
  return positions;
}

/** The sleeping-gate queue a row drains: built and submitted once in `<prefix>-template` (not timed). */
export interface SleepQueue {
  template: string;
  culprits: number[];
  policy: Record<string, unknown>;
  isCulprit: (id: string) => boolean;
}

export function prepareSleepQueue(root: string, prefix: string, opts: Pick<ParallelOptions, 'n' | 'p' | 'seed' | 'gateSeconds' | 'progress'>): SleepQueue {
  const culprits = culpritPositions(opts.n, Math.round(opts.p * opts.n), opts.seed);
  const template = join(root, `${prefix}-template`);
  mkdirSync(template, { recursive: true });
  const env = { GATE_STARTS: join(root, `${prefix}-gate-starts.txt`), GATE_ENDS: join(root, `${prefix}-gate-ends.txt`) };
  const gate = { name: 'slow', run: ['sh', '-c', GATE_SCRIPT, 'gate', String(opts.gateSeconds)], timeoutSeconds: 600, env };
  const policy = { target: 'main', gates: [gate], sandbox: countersFolder(root) };
  const set = new Set(culprits);
  const specs = branches(opts.n, set);
  buildRepo(template, policy, specs);
  opts.progress(`${prefix}: submitting ${opts.n} branches, culprits at ${culprits.join(' ') || 'none'} (not timed)`);
  const positions = submitAll(template, specs);
  return { template, culprits, policy, isCulprit: (id) => set.has(positions.get(id) ?? 0) };
}

/** What one drain of a copy of the queue did. */
export type SleepDrain = Omit<ParallelRun, 'parallel'>;

/** `land run` on a copy of the queue (in `<prefix>-<label>`), with `policy` committed when given. */
export function drainCopy(
  root: string,
  prefix: string,
  label: string,
  queue: SleepQueue,
  policy: Record<string, unknown> | null,
  env: Record<string, string> = {},
): SleepDrain {
  const dir = join(root, `${prefix}-${label.replace(' ', '-')}`);
  cpSync(queue.template, dir, { recursive: true });
  if (policy) commitPolicy(dir, policy);
  const starts = join(root, `${prefix}-gate-starts.txt`);
  const ends = join(root, `${prefix}-gate-ends.txt`);
  rmSync(starts, { force: true });
  rmSync(ends, { force: true });
  const run = land(dir, ['run', '--json'], { env });
  const summary = runSummary(run.stdout);
  const { isCulprit } = queue;
  const wrong = summary.landed.filter(isCulprit).length + summary.failed.filter((id) => !isCulprit(id)).length + summary.queued.length;
  return {
    wallSeconds: run.ms / 1000,
    gateRuns: lines(starts),
    gateRunsFinished: lines(ends),
    trains: summary.trains,
    landed: summary.landed.length,
    failed: summary.failed.length,
    wrongVerdicts: wrong,
  };
}

export function measureParallel(root: string, opts: ParallelOptions): ParallelRow {
  const queue = prepareSleepQueue(root, 'parallel', opts);
  const { culprits } = queue;
  const row: ParallelRow = {
    ...{ n: opts.n, p: opts.p, k: culprits.length, seed: opts.seed, gateSeconds: opts.gateSeconds, culprits },
    ...{ wallSeconds1: null, wallSeconds2: null, ratio: null, gateRuns1: null, gateRuns2: null, runs: [] },
  };
  for (const parallel of [1, 2]) {
    opts.progress(`parallel: land run with batch.parallel ${parallel} (gates sleep ${opts.gateSeconds} s)`);
    try {
      // batch.parallel 1 is the default: that run leaves the key out, so it runs on any build.
      const policy = parallel === 1 ? null : { ...queue.policy, batch: { parallel } };
      const run = { parallel, ...drainCopy(root, 'parallel', String(parallel), queue, policy) };
      row.runs.push(run);
      if (parallel === 1) [row.wallSeconds1, row.gateRuns1] = [run.wallSeconds, run.gateRuns];
      else [row.wallSeconds2, row.gateRuns2] = [run.wallSeconds, run.gateRuns];
    } catch (error) {
      if (!(error instanceof BenchError)) throw error;
      row.error = `batch.parallel ${parallel}: ${error.message}`;
      opts.progress(`parallel: ${row.error}`);
      break;
    }
  }
  if (row.wallSeconds1 && row.wallSeconds2 !== null) row.ratio = row.wallSeconds2 / row.wallSeconds1;
  return row;
}
