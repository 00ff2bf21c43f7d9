// The benchmark's report: its JSON shape (`--json`), the goals it is read against, and the same
// sections rendered as text tables (the terminal) or as Markdown (`--markdown BENCHMARKS.md`).
import type { ExecutorsRow } from './executors.js';
import type { ClearingRow } from './clearing.js';
import type { FlakyRow } from './flaky.js';
import type { SandboxRow } from './sandbox.js';
import type { ParallelRow } from './parallel.js';
import type { BenchSettings } from './plan.js';
import type { RemoteRow } from './remote.js';
import type { ScaleRow } from './scale.js';
import type { StatsRow } from './stats.js';
import type { CulpritRow, Startup, TrainFigure } from './scenarios.js';
import type { SweepRow } from './sweep.js';

export interface Machine {
  cpus: number;
  cpuModel: string;
  platform: string;
  memoryGiB: number;
  node: string;
  git: string;
  loadAverageAtStart: number[];
}

/** The overhead figure, read from (b): window 32 against the raw git loop, and what one more train costs. */
export interface Overhead {
  branches: number;
  /** `land run` with window N (one train). */
  landMs: number;
  /** The same merges by git alone (median of the loop runs). */
  rawGitMs: number;
  /** landMs / rawGitMs. */
  ratio: number;
  /** `land run` with window 1 (one train per job). */
  window1Ms: number;
  trainsWindow1: number;
  /** (window1Ms - landMs) / (trains - 1): what one more train costs (the goal: at most 30 ms). */
  perTrainOverheadMs: number;
}

export interface Goal {
  figure: string;
  measured: string;
  goal: string;
  /** null: not measured in this run. */
  met: boolean | null;
}

export interface Report {
  command: string;
  date: string;
  settings: BenchSettings;
  machine: Machine;
  pSweep: SweepRow[];
  scale: ScaleRow;
  stats: StatsRow;
  startup: Startup;
  overhead: Overhead;
  parallel: ParallelRow;
  /** 1 local gate slot against ssh executor slots on two sshd hosts (bench/executors.ts). */
  executors: ExecutorsRow;
  remote: RemoteRow;
  /** What the gate sandbox adds to every gate (bench/sandbox.ts). */
  sandbox: SandboxRow;
  /** The flaky-gate rows (bench/flaky.ts). */
  flaky: FlakyRow[];
  /** Optimistic clearing on and off (bench/clearing.ts). */
  clearing: ClearingRow[];
  /** (b) in full: both drains and the git loop. */
  train: TrainFigure;
  /** The old culprit rows (c), only with --culprits. */
  culprits: CulpritRow[] | null;
  rss: { tool: string | null; note: string };
  goals: Goal[];
  /** Seconds each part took, set-up included. */
  partSeconds: Record<string, number>;
  loadAverageAtEnd: number[];
  totalSeconds: number;
}

export function overheadOf(train: TrainFigure): Overhead {
  const trains = train.window1.summary.trains;
  return {
    branches: train.branches,
    landMs: train.window32.ms,
    rawGitMs: train.loop.ms,
    ratio: train.ratio,
    window1Ms: train.window1.ms,
    trainsWindow1: trains,
    perTrainOverheadMs: train.perTrainOverheadMs,
  };
}

/** The issue's goals for gate runs per job under the default policy (N = 64, batch.max 8). */
export const SWEEP_GOALS: readonly { p: number; perJob: number }[] = [
  { p: 0, perJob: 0.13 },
  { p: 0.02, perJob: 0.19 },
  { p: 0.1, perJob: 0.48 },
  { p: 0.3, perJob: 0.93 },
];

/** "The same" for a figure measured with few and with many jobs present: within 20% or 10 ms. */
export function sameWithin(many: number, few: number): boolean {
  return many <= few + Math.max(10, 0.2 * few);
}

const fix = (value: number, digits = 2) => value.toFixed(digits);
const ms = (value: number) => `${Math.round(value)} ms`;
const atMost = (value: number, limit: number) => value <= limit;

/**
 * The short-queue goals (issue 23), on the expected figure (replay x2000): 5 real queues of 16 or 24
 * jobs are too few to read a figure to two decimals. Culprits spread at seeded positions.
 */
export const SHORT_GOALS: readonly { n: number; k: number; perJob: number }[] = [
  { n: 24, k: 3, perJob: 0.55 },
  { n: 24, k: 1, perJob: 0.25 },
  { n: 16, k: 2, perJob: 0.55 },
];

/** The short-queue goal of a row: its N and k, culprits spread, p = k / N (a rate row of --quick may share N and k, not p). */
const shortGoalOf = (row: SweepRow) =>
  SHORT_GOALS.find((g) => g.n === row.n && g.k === row.k && row.pattern === 'uniform' && Math.abs(row.p - g.k / g.n) < 1e-3);

export function sweepGoal(rows: readonly SweepRow[], row: SweepRow): { goal: string; met: boolean } | null {
  if (row.policy !== 'default') return null;
  const short = shortGoalOf(row);
  if (short) return { goal: `replay x2000 <= ${short.perJob}`, met: atMost(row.simulatedManyPerJob, short.perJob) };
  if (row.pattern !== 'uniform') return null;
  const target = SWEEP_GOALS.find((g) => Math.abs(g.p - row.p) < 1e-9);
  if (!target) return null;
  const serial = rows.find((r) => r.policy === 'serial' && Math.abs(r.p - row.p) < 1e-9 && r.n === row.n);
  const checkSerial = target.p === 0.3 && serial !== undefined;
  const met = atMost(row.gateRunsPerJob, target.perJob) && (!checkSerial || row.gateRunsPerJob <= serial.gateRunsPerJob);
  return { goal: `<= ${target.perJob}${checkSerial ? ` and <= serial (${fix(serial.gateRunsPerJob, 3)})` : ''}`, met };
}

function sweepGoals(rows: readonly SweepRow[]): Goal[] {
  return rows.flatMap((row) => {
    const g = sweepGoal(rows, row);
    if (!g) return [];
    if (shortGoalOf(row))
      return [{ figure: `expected gate runs per job, default policy, N = ${row.n}, k = ${row.k}`, measured: fix(row.simulatedManyPerJob, 3), ...g }];
    return [{ figure: `gate runs per job, default policy, N = ${row.n}, p = ${row.p}`, measured: fix(row.gateRunsPerJob, 3), ...g }];
  });
}

function verdictGoal(report: Pick<Report, 'pSweep' | 'parallel' | 'executors'>): Goal {
  const runs = [...report.parallel.runs, ...report.executors.runs];
  const wrong = report.pSweep.reduce((sum, row) => sum + row.wrongVerdicts, 0) + runs.reduce((sum, run) => sum + run.wrongVerdicts, 0);
  return { figure: 'wrong verdicts (sweep, parallel and executors runs)', measured: String(wrong), goal: '0', met: wrong === 0 };
}

/** The executors goal: K slots on two ssh hosts at most 0.45 of one local slot's wall time. */
export function executorsGoal(row: ExecutorsRow): Goal {
  const figure = `wall time, ${row.slots} executor slots on ${row.hosts} sshd hosts / 1 local slot (N = ${row.n}, p = ${row.p})`;
  if (row.ratio === null) return { figure, measured: `not measured (${row.skipped ?? row.error ?? 'see executors'})`, goal: '<= 0.45', met: null };
  return { figure, measured: fix(row.ratio), goal: '<= 0.45', met: row.ratio <= 0.45 };
}

/**
 * The flaky-gate goals (issue 24), for the default policy: no culprit ever lands; at f = 0.05 no
 * good job ejected over the queues and at most 10% more gate runs than without flakes; at f = 0.15
 * at most one per 320 jobs and at most 30% more; and with f = 0 today's figures (the flaky0 rows:
 * no re-run of a deterministic gate's FAIL).
 */
export function flakyGoals(rows: readonly FlakyRow[]): Goal[] {
  const goals: Goal[] = [];
  const landed = rows.reduce((sum, row) => sum + row.culpritsLanded, 0);
  goals.push({ figure: 'flaky rows: culprits landed, every policy', measured: String(landed), goal: '0', met: landed === 0 });
  for (const row of rows.filter((r) => r.policy === 'default')) {
    const at = `default policy, N = ${row.n}, p = ${row.p}, f = ${row.f}`;
    const allowed = row.f <= 0.05 ? 0 : Math.floor((row.n * row.seeds) / 320);
    const extra = row.f <= 0.05 ? 1.1 : 1.3;
    goals.push({
      figure: `good jobs ejected, ${at}, ${row.seeds} queues`,
      measured: String(row.goodEjected),
      goal: `<= ${allowed}`,
      met: row.goodEjected <= allowed,
    });
    goals.push({
      figure: `gate runs per job with flakes / without, ${at}`,
      measured: `${fix(row.gateRunsPerJob, 3)} / ${fix(row.gateRunsPerJobNoFlakes, 3)}`,
      goal: `<= ${extra.toFixed(2)}x`,
      met: row.gateRunsPerJob <= extra * row.gateRunsPerJobNoFlakes + 1e-9,
    });
  }
  // "With f = 0 the figures equal today's": today's default is the fixed allowance 0 (flaky0), which
  // never re-runs a deterministic gate's FAIL.
  for (const row of rows.filter((r) => r.policy === 'default')) {
    const today = rows.find((r) => r.policy === 'flaky0' && r.p === row.p && r.f === row.f && r.n === row.n);
    if (!today || rows.some((r) => r.policy === 'default' && r.p === row.p && r.f < row.f)) continue;
    goals.push({
      figure: `gate runs per job with f = 0, default policy, N = ${row.n}, p = ${row.p}, ${row.seeds} queues sharing one history, vs today's (retries.flaky 0)`,
      measured: `${fix(row.gateRunsPerJobNoFlakes, 3)} vs ${fix(today.gateRunsPerJobNoFlakes, 3)}`,
      goal: 'equal',
      met: Math.abs(row.gateRunsPerJobNoFlakes - today.gateRunsPerJobNoFlakes) < 1e-3,
    });
  }
  return goals;
}

/** The goal of `land stats` over a long history: under a second. */
export function statsGoal(row: StatsRow): Goal {
  return { figure: `land stats --json, ${row.jobs} finished jobs`, measured: ms(row.statsMs), goal: '< 1000 ms', met: row.statsMs < 1000 };
}

/** Every goal of the issue, read from a report's figures (pure: the same report gives the same goals). */
export function goalsOf(report: Omit<Report, 'goals'>): Goal[] {
  const { startup: s, scale, overhead, parallel } = report;
  const node = s.nodeBaselineMs;
  const p = parallel.ratio;
  return [
    ...sweepGoals(report.pSweep),
    { figure: 'land --version', measured: ms(s.versionMs), goal: `<= 1.5 x node -e 0 (${ms(1.5 * node)})`, met: atMost(s.versionMs, 1.5 * node) },
    {
      figure: `land status --json, ${s.statusJobs} queued jobs`,
      measured: ms(s.statusMs),
      goal: `<= 2 x node -e 0 (${ms(2 * node)})`,
      met: atMost(s.statusMs, 2 * node),
    },
    { figure: `land status --json, ${scale.jobs} jobs present`, measured: ms(scale.statusMs), goal: '< 300 ms', met: scale.statusMs < 300 },
    {
      figure: `one land submit, ${scale.jobs} jobs present vs a small queue`,
      measured: `${ms(scale.submitMs)} vs ${ms(scale.submitMsSmall)}`,
      goal: 'the same (within 20% or 10 ms)',
      met: sameWithin(scale.submitMs, scale.submitMsSmall),
    },
    {
      figure: `per-train overhead, ${scale.jobs} jobs present vs a small queue`,
      measured: `${ms(scale.perTrainOverheadMs)} vs ${ms(scale.perTrainOverheadMsSmall)}`,
      goal: 'does not grow (within 20% or 10 ms)',
      met: sameWithin(scale.perTrainOverheadMs, scale.perTrainOverheadMsSmall),
    },
    {
      figure: 'per-train overhead above the raw-git loop',
      measured: ms(overhead.perTrainOverheadMs),
      goal: '<= 30 ms',
      met: overhead.perTrainOverheadMs <= 30,
    },
    {
      figure: `wall time, batch.parallel 2 / 1 (N = ${parallel.n}, p = ${parallel.p})`,
      measured: p === null ? 'not measured (see parallel)' : fix(p),
      goal: '<= 0.65',
      met: p === null ? null : p <= 0.65,
    },
    executorsGoal(report.executors),
    {
      figure: `per train, a queue in a file:// remote vs a clone's own (N = ${report.remote.branches}, one job per train)`,
      measured: `${fix(report.remote.fetchesPerTrain)} fetch + ${fix(report.remote.pushesPerTrain)} push, +${ms(report.remote.addedPerTrainMs)}`,
      goal: 'at most one fetch and one push added',
      met: report.remote.fetchesPerTrain <= 1.05 && report.remote.pushesPerTrain <= 1.05,
    },
    statsGoal(report.stats),
    ...flakyGoals(report.flaky),
    verdictGoal(report),
    {
      figure: report.settings.quick ? 'total time of this run (--quick; the goal is for the full run)' : 'total time of the full run',
      measured: `${Math.round(report.totalSeconds)} s`,
      goal: '< 600 s',
      met: report.totalSeconds < 600,
    },
  ];
}

export const metText = (met: boolean | null) => (met === null ? 'not measured' : met ? 'met' : 'not met');

/** The object `--json` prints: the issue's five keys first, then the rest. */
export function jsonReport(report: Report): string {
  const { pSweep, scale, startup, overhead, parallel, ...rest } = report;
  return `${JSON.stringify({ pSweep, scale, startup, overhead, parallel, ...rest }, null, 2)}\n`;
}

/** The keys (and their number-valued keys) `--json` must always carry, full or --quick. */
export const REQUIRED_SHAPE = {
  pSweep: ['n', 'p', 'k', 'seeds', 'gateRunsPerJob', 'gateRunsPerLanded', 'boundPerJob', 'wallSeconds'],
  scale: ['jobs', 'statusMs', 'submitMs', 'perTrainOverheadMs'],
  startup: ['nodeBaselineMs', 'versionMs', 'statusMs'],
  overhead: ['landMs', 'rawGitMs', 'ratio', 'perTrainOverheadMs'],
  parallel: ['n', 'p', 'wallSeconds1', 'wallSeconds2', 'ratio'],
  remote: ['branches', 'localMs', 'remoteMs', 'addedPerTrainMs', 'fetchesPerTrain', 'pushesPerTrain'],
  flaky: ['n', 'p', 'f', 'seeds', 'goodEjected', 'culpritsLanded', 'gateRunsPerJob', 'gateRunsPerJobNoFlakes'],
} as const;

/** What is missing from a parsed `--json` object (empty: it has the issue's shape). */
export function shapeProblems(value: unknown): string[] {
  const problems: string[] = [];
  const obj = (value ?? {}) as Record<string, unknown>;
  for (const [key, fields] of Object.entries(REQUIRED_SHAPE)) {
    const part = obj[key];
    const listed = key === 'pSweep' || key === 'flaky';
    const items = listed ? (Array.isArray(part) ? part : null) : [part];
    if (!items || items.length === 0) problems.push(`${key}: missing or empty`);
    for (const [i, item] of (items ?? []).entries()) {
      const where = listed ? `${key}[${i}]` : key;
      if (typeof item !== 'object' || item === null) {
        problems.push(`${where}: ${item === undefined ? 'missing' : 'not an object'}`);
        continue;
      }
      const record = item as Record<string, unknown>;
      // parallel's figures are null when its runs could not be made (its `error` says why).
      const nullable = key === 'parallel' && typeof record.error === 'string';
      for (const field of fields) {
        const v = record[field];
        if (!(typeof v === 'number' && Number.isFinite(v)) && !(nullable && v === null)) problems.push(`${where}.${field}: not a number`);
      }
      if (key === 'pSweep' && record.policy !== 'serial' && record.policy !== 'default') problems.push(`${where}.policy: not serial or default`);
      if (key === 'pSweep' && !['uniform', 'head', 'burst'].includes(String(record.pattern))) problems.push(`${where}.pattern: not uniform, head or burst`);
      if (key === 'flaky' && !['default', 'flaky0', 'flaky2'].includes(String(record.policy))) problems.push(`${where}.policy: not default, flaky0 or flaky2`);
    }
  }
  return problems;
}
