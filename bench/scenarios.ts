// The benchmark's measurements, one function per part of the report. Each builds its own
// repositories under `root`. A queue is submitted once in a template repository and the template
// is copied (state folder included) for every run that drains it, so set-up stays off the clock.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bisectionBound } from '../lib/landing/plan/trainPlan.js';
import { addToBranch, buildRepo, commitPolicy, countersFolder, git, mergeLoop, type BranchSpec } from './git.js';
import { FIXTURES, land, median, runSummary, timed, type RunSummary } from './land.js';

const pad = (i: number) => String(i).padStart(2, '0');
const TRUE_GATE = [{ name: 'true', run: ['true'] }];

export function branchSpecs(n: number): BranchSpec[] {
  return Array.from({ length: n }, (_, k) => ({ name: `b${pad(k + 1)}`, file: `file-b${pad(k + 1)}.txt`, content: `line ${k + 1}\n` }));
}

function freshDir(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function copyRepo(from: string, root: string, name: string): string {
  const dir = join(root, name);
  cpSync(from, dir, { recursive: true });
  return dir;
}

/** Submits every branch in order with one `land submit`; returns job id -> branch name. */
function submitAll(dir: string, branches: readonly BranchSpec[]): Map<string, string> {
  const ids = new Map<string, string>();
  const lines = land(dir, ['submit', ...branches.map((b) => b.name), '--json'])
    .stdout.split('\n')
    .filter((l) => l.trim() !== '');
  for (const line of lines) {
    const out = JSON.parse(line) as { job: { id: string; branch: string } };
    ids.set(out.job.id, out.job.branch);
  }
  return ids;
}

/** First-parent commits on main since `since`: one per landed member for merge trains. */
function mergesSince(dir: string, since: string): number {
  return Number(git(dir, ['rev-list', '--count', '--first-parent', `${since}..refs/heads/main`]));
}

// a. Startup ---------------------------------------------------------------------------------

export interface Startup {
  runs: number;
  nodeBaselineMs: number;
  versionMs: number;
  statusMs: number;
  statusJobs: number;
}

/** Median of `runs` timings after one warm-up run. */
function medianOf(runs: number, once: () => number): number {
  once();
  return median(Array.from({ length: runs }, once));
}

/** Startup on a small repository that has a queue (a copy of `repo`, which is left as it is). */
export function measureStartup(root: string, repo: string, runs = 5): Startup {
  const dir = copyRepo(repo, root, 'startup');
  const status = JSON.parse(land(dir, ['status', '--json']).stdout) as { jobs: unknown[] };
  return {
    runs,
    nodeBaselineMs: medianOf(runs, () => timed(dir, process.execPath, ['-e', '0']).ms),
    versionMs: medianOf(runs, () => land(dir, ['--version']).ms),
    statusMs: medianOf(runs, () => land(dir, ['status', '--json']).ms),
    statusJobs: status.jobs.length,
  };
}

/** A small repository with `n` queued jobs (gate `true`): the queue `land status` reads in (a). */
export function prepareSmallQueue(root: string, n = 8): string {
  const dir = freshDir(root, 'small-queue');
  const branches = branchSpecs(n);
  buildRepo(dir, { target: 'main', gates: TRUE_GATE }, branches);
  submitAll(dir, branches);
  return dir;
}

// b. The figure: 32 one-line branches, gate `true` ------------------------------------

export interface DrainRun {
  ms: number;
  summary: RunSummary;
  mergesOnMain: number;
  maxRssKiB: number | null;
}

export interface TrainFigure {
  branches: number;
  window32: DrainRun;
  window1: DrainRun;
  loop: { ms: number; runs: number[]; gitProcesses: number; mergesOnMain: number };
  /** land run (window 32) over the git loop. */
  ratio: number;
  ratioWindow1: number;
  /** (window 1 - window 32) / (trains - 1): what one more train costs. */
  perTrainOverheadMs: number;
}

function drainOnce(dir: string, rssFile: string | null): DrainRun {
  const before = git(dir, ['rev-parse', 'refs/heads/main']);
  const run = land(dir, ['run', '--json'], rssFile ? { rssFile } : {});
  return { ms: run.ms, summary: runSummary(run.stdout), mergesOnMain: mergesSince(dir, before), maxRssKiB: run.maxRssKiB };
}

export function measureTrainFigure(
  root: string,
  opts: { n?: number; loopRuns?: number; rssFile: string | null; progress: (line: string) => void },
): TrainFigure {
  const n = opts.n ?? 32;
  const branches = branchSpecs(n);
  const template = freshDir(root, 'train-template');
  const policy = { target: 'main', gates: TRUE_GATE, batch: { max: n } };
  buildRepo(template, policy, branches);
  opts.progress(`submitting ${n} branches (not timed)`);
  submitAll(template, branches);
  land(template, ['window', '--set', String(n)]);

  opts.progress(`git loop: ${n} x (merge-tree, commit-tree) + update-ref`);
  const loopRuns: number[] = [];
  let gitProcesses = 0;
  let loopMerges = 0;
  for (let i = 1; i <= (opts.loopRuns ?? 3); i += 1) {
    const dir = copyRepo(template, root, `loop-${i}`);
    const before = git(dir, ['rev-parse', 'refs/heads/main']);
    const started = performance.now();
    gitProcesses = mergeLoop(
      dir,
      branches.map((b) => b.name),
    );
    loopRuns.push(performance.now() - started);
    loopMerges = mergesSince(dir, before);
  }

  opts.progress(`land run, window ${n}`);
  const wide = copyRepo(template, root, `train-w${n}`);
  const window32 = drainOnce(wide, opts.rssFile);

  opts.progress('land run, window 1');
  // The window grows by one after each PASS, so one train per job needs batch.max 1 as well.
  const narrow = copyRepo(template, root, 'train-w1');
  commitPolicy(narrow, { ...policy, batch: { max: 1 } });
  land(narrow, ['window', '--set', '1']);
  const window1 = drainOnce(narrow, opts.rssFile);

  const loopMs = median(loopRuns);
  const trains = Math.max(2, window1.summary.trains);
  return {
    branches: n,
    window32,
    window1,
    loop: { ms: loopMs, runs: loopRuns, gitProcesses, mergesOnMain: loopMerges },
    ratio: window32.ms / loopMs,
    ratioWindow1: window1.ms / loopMs,
    perTrainOverheadMs: (window1.ms - window32.ms) / (trains - 1),
  };
}

// c. Gate runs per landed job with culprits (only with --culprits: the sweep supersedes it) ---------------------------------------------------

export interface CulpritRow {
  n: number;
  label: string;
  culprits: number[];
  gateRuns: number;
  /** ceil(log2 N) + 2 (trainPlan.bisectionBound); null unless there is exactly one culprit. */
  bound: number | null;
  landed: number;
  failed: number;
  failedBranches: string[];
  trains: number;
  ms: number;
}

function culpritCases(n: number): { label: string; culprits: number[] }[] {
  const quarter = Math.floor(n / 4);
  return [
    { label: 'first', culprits: [1] },
    { label: 'middle', culprits: [n / 2] },
    { label: 'last', culprits: [n] },
    { label: 'two', culprits: [quarter + 1, n - quarter] },
  ];
}

export interface CulpritTemplate {
  n: number;
  dir: string;
  counter: string;
  branches: BranchSpec[];
  /** job id -> branch */
  ids: Map<string, string>;
}

/** N branches queued under a gate that counts its runs, window set to N (copied with the state). */
export function prepareCulpritTemplate(root: string, n: number): CulpritTemplate {
  const counter = join(root, `gate-runs-${n}.txt`);
  const dir = freshDir(root, `culprit-${n}-template`);
  const branches = branchSpecs(n);
  const gate = { name: 'test', run: ['sh', join(FIXTURES, 'gates', 'counted.sh')], timeoutSeconds: 60, env: { GATE_COUNTER: counter } };
  buildRepo(dir, { target: 'main', gates: [gate], batch: { max: n }, sandbox: countersFolder(root) }, branches);
  const ids = submitAll(dir, branches);
  land(dir, ['window', '--set', String(n)]);
  return { n, dir, counter, branches, ids };
}

export function measureCulprits(root: string, templates: readonly CulpritTemplate[], progress: (line: string) => void): CulpritRow[] {
  const rows: CulpritRow[] = [];
  for (const { n, dir: template, counter, branches, ids } of templates) {
    for (const scenario of culpritCases(n)) {
      progress(`N=${n}: culprits ${scenario.label} [${scenario.culprits.join(' ')}]`);
      const dir = copyRepo(template, root, `culprit-${n}-${scenario.label}`);
      // A culprit is its branch with one more commit adding culprit-<i>; resubmitting a queued
      // branch replaces its job's tip and keeps the job's place in the queue.
      for (const position of scenario.culprits) {
        const branch = branches[position - 1] as BranchSpec;
        addToBranch(dir, branch.name, `culprit-${position}`, `culprit ${position}\n`);
        land(dir, ['submit', branch.name, '--json']);
      }
      rmSync(counter, { force: true });
      const run = land(dir, ['run', '--json']);
      const summary = runSummary(run.stdout);
      const gateRuns = existsSync(counter)
        ? readFileSync(counter, 'utf8')
            .split('\n')
            .filter((line) => line.trim() !== '').length
        : 0;
      rows.push({
        n,
        label: scenario.label,
        culprits: scenario.culprits,
        gateRuns,
        bound: scenario.culprits.length === 1 ? bisectionBound(n) : null,
        landed: summary.landed.length,
        failed: summary.failed.length,
        failedBranches: summary.failed.map((id) => ids.get(id) ?? id).sort(),
        trains: summary.trains,
        ms: run.ms,
      });
    }
  }
  return rows;
}
