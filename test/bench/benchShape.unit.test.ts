// The benchmark's report functions on a small fake report: the `--json` shape the issue asks for,
// the goals read from the figures, the text and Markdown renderings and the flags. Pure: the
// benchmark itself takes minutes (`npm run bench -- --quick` is the smoke run), so it is not run here.
import { describe, expect, it } from 'vitest';
import { type ClearingRow, measureClearing } from '../../bench/clearing.js';
import { type FlakyRow, measureFlaky } from '../../bench/flaky.js';
import { formatMarkdown, formatReport } from '../../bench/format.js';
import type { ExecutorsRow } from '../../bench/executors.js';
import type { ParallelRow } from '../../bench/parallel.js';
import { culpritPositions, positionsOf, queueSeed, sweepShapes } from '../../bench/sweep.js';
import { parseArgs, settingsFor } from '../../bench/plan.js';
import { flakyGoals, goalsOf, jsonReport, overheadOf, type Report, sameWithin, shapeProblems } from '../../bench/report.js';
import type { TrainFigure } from '../../bench/scenarios.js';
import type { SweepRow } from '../../bench/sweep.js';

function sweepRow(p: number, policy: 'serial' | 'default', gateRunsPerJob: number): SweepRow {
  const k = Math.round(p * 64);
  return {
    n: 64,
    p,
    k,
    pattern: 'uniform',
    policy,
    seeds: 5,
    gateRunsPerJob,
    gateRunsPerLanded: gateRunsPerJob * 1.1,
    boundPerJob: 0.4,
    wallSeconds: 9.1,
    landed: 5 * (64 - k),
    failed: 5 * k,
    wrongVerdicts: 0,
    simulatedPerJob: gateRunsPerJob,
    simulatedManyPerJob: gateRunsPerJob,
  };
}

function drainRun(ms: number, trains: number): TrainFigure['window32'] {
  return {
    ms,
    summary: { trains, gateRuns: trains, landed: Array.from({ length: 32 }, (_, i) => `j${i}`), failed: [], queued: [], window: 32 },
    mergesOnMain: 32,
    maxRssKiB: 65_000,
  };
}

const train: TrainFigure = {
  branches: 32,
  window32: drainRun(1000, 1),
  window1: drainRun(1000 + 31 * 25, 32),
  loop: { ms: 400, runs: [390, 400, 410], gitProcesses: 66, mergesOnMain: 32 },
  ratio: 2.5,
  ratioWindow1: 4.4,
  perTrainOverheadMs: 25,
};

/** One drain of the sleeping-gate queue (bench/parallel.ts drainCopy). */
const sleepDrain = (wallSeconds: number, gateRuns: number) => ({
  wallSeconds,
  gateRuns,
  gateRunsFinished: 15,
  trains: 12,
  landed: 29,
  failed: 3,
  wrongVerdicts: 0,
});

function parallelRow(overrides: Partial<ParallelRow> = {}): ParallelRow {
  const run = (parallel: number, wallSeconds: number) => ({ parallel, ...sleepDrain(wallSeconds, 16) });
  return {
    ...{ n: 32, p: 0.1, k: 3, seed: 1, gateSeconds: 1, culprits: [4, 17, 30] },
    ...{ wallSeconds1: 20, wallSeconds2: 12, ratio: 0.6, gateRuns1: 16, gateRuns2: 16, runs: [run(1, 20), run(2, 12)] },
    ...overrides,
  };
}

function executorsRow(overrides: Partial<ExecutorsRow> = {}): ExecutorsRow {
  const run = (slots: string, wallSeconds: number) => ({ slots, ...sleepDrain(wallSeconds, 18) });
  return {
    ...{ n: 32, p: 0.1, k: 3, seed: 1, gateSeconds: 1, culprits: [4, 17, 30], slots: 4, hosts: 2 },
    ...{ wallSecondsLocal1: 20, wallSecondsK: 9, ratio: 0.45, wallSecondsLocalK: 8, gateRuns: 18, finished: 15, runs: [run('local 1', 20), run('ssh 4', 9)] },
    ...overrides,
  };
}

function fakeReport(overrides: Partial<Omit<Report, 'goals'>> = {}): Report {
  const partial: Omit<Report, 'goals'> = {
    command: 'npm run bench -- --json',
    date: '2026-11-30T00:00:00.000Z',
    settings: settingsFor({ quick: false, culprits: false }),
    machine: { cpus: 2, cpuModel: 'test cpu', platform: 'linux', memoryGiB: 4, node: 'v20', git: '2.39', loadAverageAtStart: [1, 1, 1] },
    pSweep: [
      sweepRow(0, 'serial', 1),
      sweepRow(0, 'default', 0.125),
      sweepRow(0.1, 'serial', 1),
      sweepRow(0.1, 'default', 0.48),
      sweepRow(0.3, 'serial', 0.9),
      sweepRow(0.3, 'default', 0.92),
    ],
    scale: {
      jobs: 10_000,
      finished: 9_900,
      queued: 100,
      statusMs: 280,
      submitMs: 130,
      submitMsSmall: 100,
      perTrainOverheadMs: 30,
      perTrainOverheadMsSmall: 25,
      buildSeconds: 2,
    },
    stats: { jobs: 10_000, trains: 2500, statsMs: 900, statsCpuMs: 700, runs: 5, buildSeconds: 6 },
    startup: { runs: 5, nodeBaselineMs: 60, versionMs: 85, statusMs: 130, statusJobs: 8 },
    overhead: overheadOf(train),
    parallel: parallelRow(),
    executors: executorsRow(),
    sandbox: { runs: 21, mechanism: '/usr/bin/bwrap', plainMs: 3, sandboxedMs: 9, perGateMs: 6, note: 'test' },
    flaky: FLAKY,
    clearing: CLEARING,
    remote: {
      branches: 16,
      trains: 16,
      localMs: 3200,
      remoteMs: 8000,
      addedPerTrainMs: 300,
      fetches: 18,
      pushes: 18,
      fetchesPerTrain: 1,
      pushesPerTrain: 1,
      landedOnServer: 16,
    },
    train,
    culprits: null,
    rss: { tool: null, note: 'no GNU time' },
    partSeconds: { startup: 3, overhead: 10 },
    loadAverageAtEnd: [1, 1, 1],
    totalSeconds: 480,
    ...overrides,
  };
  return { ...partial, goals: goalsOf(partial) };
}

/** The flaky rows of a tiny replay (pure, milliseconds). */
const FLAKY: FlakyRow[] = measureFlaky({ n: 16, batchMax: 8, rates: [0, 0.1], flakeRates: [0.05, 0.15], seeds: 2, many: 20 });
/** The clearing rows of a tiny replay (pure, milliseconds). */
const CLEARING: ClearingRow[] = measureClearing({ n: 16, batchMax: 8, parallel: 2, rates: [0, 0.1], flakeRates: [0.05, 0.15], queues: 20 });

const goal = (report: Report, figure: string) => report.goals.find((g) => g.figure.startsWith(figure));

describe('the --json report', () => {
  it("has the issue's shape, its five keys first", () => {
    const parsed = JSON.parse(jsonReport(fakeReport())) as Record<string, unknown>;
    expect(shapeProblems(parsed)).toEqual([]);
    expect(Object.keys(parsed).slice(0, 5)).toEqual(['pSweep', 'scale', 'startup', 'overhead', 'parallel']);
    expect(parsed.overhead).toEqual({ branches: 32, landMs: 1000, rawGitMs: 400, ratio: 2.5, window1Ms: 1775, trainsWindow1: 32, perTrainOverheadMs: 25 });
  });

  it('the shape check finds a missing part, a missing figure and a policy it does not know', () => {
    const parsed = JSON.parse(jsonReport(fakeReport())) as Record<string, unknown>;
    delete parsed.scale;
    delete (parsed.startup as Record<string, unknown>).versionMs;
    (parsed.pSweep as Record<string, unknown>[])[0]!.policy = 'fast';
    expect(shapeProblems(parsed)).toEqual(['pSweep[0].policy: not serial or default', 'scale: missing', 'startup.versionMs: not a number']);
    expect(shapeProblems({ ...parsed, pSweep: [] })).toContain('pSweep: missing or empty');
  });

  it('parallel figures may be null only when the row says why', () => {
    const missing = parallelRow({ wallSeconds2: null, ratio: null, gateRuns2: null, runs: [] });
    expect(shapeProblems(JSON.parse(jsonReport(fakeReport({ parallel: missing }))))).toEqual([
      'parallel.wallSeconds2: not a number',
      'parallel.ratio: not a number',
    ]);
    const explained = { ...missing, error: 'batch.parallel 2: unknown key' };
    expect(shapeProblems(JSON.parse(jsonReport(fakeReport({ parallel: explained }))))).toEqual([]);
  });
});

describe('the goals', () => {
  it('reads the remote row: at most one fetch and one push added per train', () => {
    expect(goal(fakeReport(), 'per train, a queue in a file:// remote')?.met).toBe(true);
    const more = fakeReport({ remote: { ...fakeReport().remote, pushesPerTrain: 2 } });
    expect(goal(more, 'per train, a queue in a file:// remote')?.met).toBe(false);
    expect(formatReport(fakeReport())).toContain('file:// remote');
  });

  it('reads each goal from the figures: met at the limit, not met past it, not measured without a figure', () => {
    const report = fakeReport();
    expect(goal(report, 'gate runs per job, default policy, N = 64, p = 0.1')?.met).toBe(true);
    expect(goal(report, 'land --version')?.met).toBe(true);
    expect(goal(report, 'land status --json, 8')?.met).toBe(false);
    expect(goal(report, 'land status --json, 10000')?.met).toBe(true);
    expect(goal(report, 'one land submit')?.met).toBe(false);
    expect(goal(report, 'per-train overhead, 10000')?.met).toBe(true);
    expect(goal(report, 'per-train overhead above')?.met).toBe(true);
    expect(goal(report, 'wall time, batch.parallel')?.met).toBe(true);
    expect(goal(report, 'total time of the full run')?.met).toBe(true);
    expect(goal(report, 'land stats --json, 10000 finished jobs')).toMatchObject({ measured: '900 ms', goal: '< 1000 ms', met: true });
    const slow = fakeReport({ stats: { ...fakeReport().stats, statsMs: 1000 } });
    expect(goal(slow, 'land stats --json, 10000 finished jobs')?.met).toBe(false);
    const worse = fakeReport({ pSweep: [sweepRow(0.1, 'default', 0.481)], parallel: parallelRow({ ratio: null, wallSeconds2: null, error: 'x' }) });
    expect(goal(worse, 'gate runs per job, default policy, N = 64, p = 0.1')?.met).toBe(false);
    expect(goal(worse, 'wall time, batch.parallel')?.met).toBeNull();
  });

  it('reads the executors row: ratio at most 0.45; not measured where there is no sshd', () => {
    expect(goal(fakeReport(), 'wall time, 4 executor slots on 2 sshd hosts / 1 local slot')).toMatchObject({ measured: '0.45', met: true });
    const slower = fakeReport({ executors: executorsRow({ ratio: 0.46 }) });
    expect(goal(slower, 'wall time, 4 executor slots')?.met).toBe(false);
    const none = executorsRow({
      wallSecondsLocal1: null,
      wallSecondsK: null,
      ratio: null,
      wallSecondsLocalK: null,
      gateRuns: null,
      finished: null,
      runs: [],
      skipped: 'no sshd (/usr/sbin/sshd)',
    });
    expect(goal(fakeReport({ executors: none }), 'wall time, 4 executor slots')).toMatchObject({
      measured: 'not measured (no sshd (/usr/sbin/sshd))',
      met: null,
    });
    expect(formatReport(fakeReport({ executors: none }))).toContain('not measured: no sshd (/usr/sbin/sshd)');
    expect(formatReport(fakeReport())).toMatch(/ssh 4 +9\.00 s +18 +15 +12 +29 +3 +0/);
  });

  it('at p = 0.3 the default policy must also stay at or under serial', () => {
    const report = fakeReport();
    const g = goal(report, 'gate runs per job, default policy, N = 64, p = 0.3');
    expect(g?.goal).toBe('<= 0.93 and <= serial (0.900)');
    expect(g?.met).toBe(false);
  });

  it('reads the short-queue goals on the replay x2000 (the expected figure); the other short rows have no goal', () => {
    const short = (n: number, k: number, pattern: SweepRow['pattern'], expected: number): SweepRow => ({
      ...sweepRow(0, 'default', expected),
      ...{ n, k, p: k / n, pattern, seeds: 3, gateRunsPerJob: 0.9, simulatedManyPerJob: expected },
    });
    const report = fakeReport({ pSweep: [short(24, 3, 'uniform', 0.55), short(24, 1, 'uniform', 0.26), short(24, 3, 'burst', 0.5)] });
    expect(goal(report, 'expected gate runs per job, default policy, N = 24, k = 3')).toMatchObject({
      measured: '0.550',
      goal: 'replay x2000 <= 0.55',
      met: true,
    });
    expect(goal(report, 'expected gate runs per job, default policy, N = 24, k = 1')?.met).toBe(false);
    expect(report.goals.filter((g) => g.figure.includes('N = 24'))).toHaveLength(2);
    // A --quick rate row (N = 16, p = 0.1, so k = 2) keeps the rate goal, not the short queue's.
    const quickRate = fakeReport({ pSweep: [{ ...sweepRow(0.1, 'default', 0.45), n: 16, k: 2 }] });
    expect(goal(quickRate, 'gate runs per job, default policy, N = 16, p = 0.1')).toMatchObject({ goal: '<= 0.48', met: true });
  });

  it('counts a wrong verdict anywhere as a goal not met', () => {
    const bad = parallelRow();
    bad.runs[1]!.wrongVerdicts = 1;
    expect(goal(fakeReport(), 'wrong verdicts')?.met).toBe(true);
    expect(goal(fakeReport({ parallel: bad }), 'wrong verdicts')?.met).toBe(false);
  });

  it('"the same" is within 20% or 10 ms, whichever is larger', () => {
    expect(sameWithin(109, 100)).toBe(true);
    expect(sameWithin(121, 100)).toBe(false);
    expect(sameWithin(14, 5)).toBe(true);
    expect(sameWithin(16, 5)).toBe(false);
  });
});

describe('the tables', () => {
  it('prints every part side by side, with the goals and whether they were met', () => {
    const report = fakeReport();
    const text = formatReport(report);
    for (const title of ['a. startup', 'b. overhead', 'pSweep:', 'scale:', 'parallel:', 'flaky:', 'clearing:', 'goals']) expect(text).toContain(title);
    expect(text).toMatch(/64 +0\.1 +6 +uniform +default +5 +0\.480 .* <= 0\.48 +met/);
    expect(text).toMatch(/0\.1 +6 +uniform +serial +5 +1\.000 .*\(for comparison\)/);
    expect(text).toContain('per-train overhead = (window 1 - window 32) / (32 trains - 1) = 25 ms (goal <= 30 ms)');
    expect(text).toMatch(/ 2 +12\.00 s +16 +15 +12 +29 +3 +0/);
    expect(text).toContain('stats: land stats --json over 10000 finished jobs and 2500 metrics rows');
    expect(text).toContain('CPU time (user + system, GNU time) of the same command: 700 ms');
    const flakyFigure = /^(flaky rows|good jobs ejected|gate runs per job with)/;
    const others = report.goals.filter((g) => !flakyFigure.test(g.figure));
    expect(`${others.filter((g) => g.met).length} of ${others.length}`).toBe('12 of 15');
    expect(text).toContain(`${report.goals.filter((g) => g.met).length} of ${report.goals.length} met`);
  });

  it('writes BENCHMARKS.md with the command, the machine, the goals first and the definitions', () => {
    const md = formatMarkdown(fakeReport());
    expect(md.startsWith('# Benchmarks\n')).toBe(true);
    expect(md).toContain('- command: `npm run bench -- --json`');
    expect(md).toContain('- machine: 2 CPU(s) test cpu; linux; 4 GiB; node v20; git 2.39');
    expect(md.indexOf('## goals')).toBeLessThan(md.indexOf('## a. startup'));
    expect(md).toContain('| n | p | k | pattern | policy | seeds | gate runs/job |');
    expect(md).toContain('| 0.1 | 6 | uniform | default | 5 | 0.480 |');
    expect(md).toContain('perTrainOverheadMs');
  });
});

describe('flags and settings', () => {
  it('parses the flags and refuses what it does not know', () => {
    expect(parseArgs(['--quick', '--json', '--markdown', 'B.md'])).toEqual({
      json: true,
      keep: false,
      quick: true,
      culprits: false,
      markdown: 'B.md',
      only: null,
    });
    expect(parseArgs(['--only', 'stats']).only).toBe('stats');
    expect(parseArgs(['--only=scale']).only).toBe('scale');
    expect(() => parseArgs(['--only', 'nothing'])).toThrow(/--only needs a part: startup, overhead, pSweep, scale, stats/);
    expect(() => parseArgs(['--only', 'stats', '--markdown', 'B.md'])).toThrow(/not with --only/);
    expect(parseArgs(['--markdown=B.md']).markdown).toBe('B.md');
    expect(() => parseArgs(['--markdown'])).toThrow(/needs a file name/);
    expect(() => parseArgs(['--fast'])).toThrow(/unknown argument --fast/);
  });

  it("--quick shrinks the counts; the full run keeps the issue's", () => {
    const full = settingsFor({ quick: false, culprits: false });
    const quick = settingsFor({ quick: true, culprits: false });
    expect(full.sweep).toMatchObject({ n: 64, batchMax: 8, rates: [0, 0.02, 0.1, 0.3], seeds: 5, gateMs: 50, policies: ['serial', 'default'] });
    expect(full.scale).toEqual({ jobs: 10_000, queued: 100, runs: 5 });
    expect(full.stats).toEqual({ jobs: 10_000, runs: 5 });
    expect(full.parallel).toMatchObject({ n: 32, p: 0.1, gateSeconds: 1 });
    expect(quick.sweep.n).toBeLessThan(full.sweep.n);
    expect(quick.scale.jobs).toBeLessThan(full.scale.jobs);
    expect(quick.parallel.n).toBeLessThan(full.parallel.n);
  });

  it('draws exactly k distinct culprit positions, the same ones for the same seed', () => {
    const positions = culpritPositions(32, 3, 1);
    expect(positions).toHaveLength(3);
    expect(new Set(positions).size).toBe(3);
    expect(positions.every((p) => p >= 1 && p <= 32)).toBe(true);
    expect(culpritPositions(32, 3, 1)).toEqual(positions);
    expect(culpritPositions(32, 0, 1)).toEqual([]);
  });

  it('places short-queue culprits spread, at the head, or k consecutive from a seeded start', () => {
    const shape = (pattern: SweepRow['pattern']) => ({ n: 24, k: 3, p: 0.125, pattern });
    expect(positionsOf(shape('uniform'), 2)).toEqual(culpritPositions(24, 3, queueSeed(0.125, 2)));
    expect(positionsOf(shape('head'), 2)).toEqual([1, 2, 3]);
    const burst = positionsOf(shape('burst'), 2);
    expect(burst).toHaveLength(3);
    expect(burst.map((p, i) => p - i)).toEqual([burst[0], burst[0], burst[0]]);
    expect(Math.max(...burst)).toBeLessThanOrEqual(24);
  });

  it('runs the rate rows, then every short queue (default policy; the head one drained once)', () => {
    const { progress: _, ...options } = { ...settingsFor({ quick: false, culprits: false }).sweep, progress: () => undefined };
    const shapes = sweepShapes(options);
    expect(shapes.slice(0, 4).map((s) => [s.n, s.k, s.pattern])).toEqual([
      [64, 0, 'uniform'],
      [64, 1, 'uniform'],
      [64, 6, 'uniform'],
      [64, 19, 'uniform'],
    ]);
    expect(shapes).toHaveLength(4 + 2 * 3 * 3);
    expect(shapes.find((s) => s.n === 16 && s.k === 2 && s.pattern === 'head')).toMatchObject({ seeds: 1, policies: ['default'] });
    expect(shapes.find((s) => s.n === 24 && s.k === 3 && s.pattern === 'burst')).toMatchObject({ p: 0.125, seeds: 3 });
  });
});

describe('the clearing rows (bench/clearing.ts)', () => {
  it('has a row per shape, rate, flake rate, off and on; no culprit lands; only clearing clears', () => {
    expect(CLEARING.map((r) => `${r.shape} ${r.p} ${r.f} ${r.clearing}`)).toHaveLength(16);
    for (const row of CLEARING) {
      expect(row.culpritsLanded).toBe(0);
      if (!row.clearing) expect(row.clearedPerQueue).toBe(0);
    }
    expect(CLEARING.filter((r) => r.clearing).some((r) => r.clearedPerQueue > 0)).toBe(true);
  });
});

describe('the flaky rows (bench/flaky.ts)', () => {
  it("has a row per rate, flake rate and policy with the issue's fields; no culprit lands", () => {
    expect(FLAKY.map((r) => `${r.p} ${r.f} ${r.policy}`)).toHaveLength(12);
    for (const row of FLAKY) {
      expect(Object.keys(row)).toEqual(
        expect.arrayContaining(['n', 'p', 'f', 'policy', 'seeds', 'goodEjected', 'culpritsLanded', 'gateRunsPerJob', 'gateRunsPerJobNoFlakes']),
      );
      expect(row.culpritsLanded).toBe(0);
    }
    // retries.flaky 2 gates a lone failed job again: it ejects no more good jobs than 0 re-runs.
    const ejected = (policy: string) => FLAKY.filter((r) => r.policy === policy).reduce((sum, r) => sum + r.expected.goodEjectedPer320, 0);
    expect(ejected('flaky2')).toBeLessThan(ejected('flaky0'));
  });

  it("reads the goals: no good job ejected at f = 0.05, at most 1 per 320 at f = 0.15, runs within 10% / 30%, f = 0 equal to today's", () => {
    const row = (over: Partial<FlakyRow>): FlakyRow => ({ ...(FLAKY[0] as FlakyRow), policy: 'default', n: 64, seeds: 5, ...over });
    const goals = flakyGoals([
      row({ p: 0.1, f: 0.05, goodEjected: 1, gateRunsPerJob: 0.5, gateRunsPerJobNoFlakes: 0.48 }),
      row({ p: 0.1, f: 0.15, goodEjected: 1, gateRunsPerJob: 0.7, gateRunsPerJobNoFlakes: 0.48 }),
      row({ p: 0.1, f: 0.05, policy: 'flaky0', goodEjected: 4, gateRunsPerJob: 0.5, gateRunsPerJobNoFlakes: 0.48 }),
      row({ p: 0, f: 0.05, goodEjected: 0, gateRunsPerJob: 0.15, gateRunsPerJobNoFlakes: 0.13 }),
      row({ p: 0, f: 0.05, policy: 'flaky0', goodEjected: 2, gateRunsPerJob: 0.15, gateRunsPerJobNoFlakes: 0.125 }),
    ]);
    const met = (figure: string) => goals.find((g) => g.figure.startsWith(figure))?.met;
    expect(met('good jobs ejected, default policy, N = 64, p = 0.1, f = 0.05')).toBe(false);
    expect(met('good jobs ejected, default policy, N = 64, p = 0.1, f = 0.15')).toBe(true);
    expect(met('gate runs per job with flakes / without, default policy, N = 64, p = 0.1, f = 0.05')).toBe(true);
    expect(met('gate runs per job with flakes / without, default policy, N = 64, p = 0.1, f = 0.15')).toBe(false);
    expect(met('gate runs per job with f = 0, default policy, N = 64, p = 0.1')).toBe(true);
    expect(met('gate runs per job with f = 0, default policy, N = 64, p = 0,')).toBe(false);
  });
});
