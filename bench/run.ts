// `npm run bench`: what `land` costs, measured on throwaway repositories with the real CLI.
//   a. startup: `node -e 0`, `land --version` and `land status --json` (median after a warm-up)
//   b. overhead: `land run` for 32 one-line branches with a gate `true`, window 32 and window 1,
//      against the same merges done by git alone (merge-tree/commit-tree/update-ref)
//   pSweep: gate runs per job across culprit rates, serial and default policies (bench/sweep.ts)
//   scale: status, submit and per-train overhead with 10,000 jobs present (bench/scale.ts)
//   stats: `land stats --json` over 10,000 finished jobs and their metrics rows (bench/stats.ts)
//   parallel: wall time with batch.parallel 1 and 2 (bench/parallel.ts)
//   executors: the same queue on 1 local gate slot and on 4 slots of two sshd hosts (bench/executors.ts)
//   remote: per-train cost of a queue kept in a file:// remote against a clone's own (bench/remote.ts)
//   sandbox: what the gate sandbox adds per gate (bench/sandbox.ts)
//   flaky: ejected good jobs, landed culprits and gate runs with a flaky gate, per policy (bench/flaky.ts)
//   clearing: optimistic clearing off and on with a flaky gate, batch.parallel 2 (bench/clearing.ts)
//   c. (--culprits only) gate runs per landed job with culprits at fixed positions, N = 8 and 16
//   d. peak RSS of the `land run` processes of (b), through GNU time when it is there
// It measures and prints; it asserts nothing. Flags: see USAGE (bench/plan.ts); `--only <part>` runs
// one part and prints its figures (and the goals read from them) alone. Progress goes to stderr.
import { measureFlaky } from './flaky.js';
import { measureSandbox } from './sandbox.js';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { measureClearing } from './clearing.js';
import { measureExecutors } from './executors.js';
import { formatMarkdown, formatReport } from './format.js';
import { BenchError, git } from './git.js';
import { gnuTimeWorks } from './land.js';
import { measureParallel } from './parallel.js';
import { type BenchArgs, type BenchSettings, type Part, parseArgs, settingsFor, USAGE } from './plan.js';
import { executorsGoal, flakyGoals, goalsOf, jsonReport, type Goal, type Machine, metText, overheadOf, type Report, statsGoal } from './report.js';
import { measureRemoteQueue } from './remote.js';
import { measureScale } from './scale.js';
import { measureStats } from './stats.js';
import { measureCulprits, measureStartup, measureTrainFigure, prepareCulpritTemplate, prepareSmallQueue } from './scenarios.js';
import { measureSweep } from './sweep.js';

const round2 = (value: number) => Math.round(value * 100) / 100;

function machine(root: string): Machine {
  const cpuList = cpus();
  return {
    cpus: cpuList.length,
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
    platform: `${platform()} ${release()} ${arch()}`,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    git: git(root, ['--version']).replace(/^git version /, ''),
    loadAverageAtStart: loadavg().map(round2),
  };
}

/** Gate runs of each kind the sandbox row takes the median of. */
const SANDBOX_RUNS = 21;

/** Runs every part in order, timing each one (set-up included) into `partSeconds`. */
async function measureAll(root: string, settings: BenchSettings, progress: (line: string) => void, partSeconds: Record<string, number>) {
  const part = async <T>(name: string, fn: () => T | Promise<T>): Promise<T> => {
    const started = performance.now();
    progress(`${name}: start`);
    const value = await fn();
    partSeconds[name] = Math.round((performance.now() - started) / 100) / 10;
    return value;
  };
  const rssFile = join(root, 'time-rss.txt');
  const rss = gnuTimeWorks(root, rssFile);
  const startup = await part('startup', () => measureStartup(root, prepareSmallQueue(root), settings.startupRuns));
  const train = await part('overhead', () => measureTrainFigure(root, { n: settings.trainBranches, rssFile: rss ? rssFile : null, progress }));
  const pSweep = await part('pSweep', () => measureSweep(root, { ...settings.sweep, progress }));
  const scale = await part('scale', () => measureScale(root, { ...settings.scale, progress }));
  const stats = await part('stats', () => measureStats(root, { ...settings.stats, progress }));
  const parallel = await part('parallel', () => measureParallel(root, { ...settings.parallel, progress }));
  const executors = await part('executors', () => measureExecutors(root, { ...settings.executors, progress }));
  const remote = await part('remote', () => measureRemoteQueue(root, { ...settings.remote, progress }));
  const sandbox = await part('sandbox', () => measureSandbox(root, { runs: SANDBOX_RUNS, progress }));
  const flaky = await part('flaky', () => measureFlaky(settings.flaky));
  const clearing = await part('clearing', () => measureClearing(settings.clearing));
  const culprits = settings.culprits
    ? await part('culprits', () =>
        measureCulprits(
          root,
          [8, 16].map((n) => prepareCulpritTemplate(root, n)),
          progress,
        ),
      )
    : null;
  const rssNote = rss
    ? { tool: '/usr/bin/time -f %M', note: 'peak RSS of the largest process in the land run tree (node itself)' }
    : { tool: null, note: 'GNU time (/usr/bin/time -f %M) is not available: peak RSS skipped' };
  return { startup, train, overhead: overheadOf(train), pSweep, scale, stats, parallel, executors, remote, sandbox, flaky, clearing, culprits, rss: rssNote };
}

/** One part alone (`--only`): its figures, and the goals read from them (the stats part's; the others' need the whole report). */
async function measureOne(root: string, settings: BenchSettings, only: Part, progress: (line: string) => void): Promise<{ value: unknown; goals: Goal[] }> {
  switch (only) {
    case 'startup':
      return { value: measureStartup(root, prepareSmallQueue(root), settings.startupRuns), goals: [] };
    case 'overhead': {
      const train = measureTrainFigure(root, { n: settings.trainBranches, rssFile: null, progress });
      return { value: { train, overhead: overheadOf(train) }, goals: [] };
    }
    case 'pSweep':
      return { value: await measureSweep(root, { ...settings.sweep, progress }), goals: [] };
    case 'scale':
      return { value: measureScale(root, { ...settings.scale, progress }), goals: [] };
    case 'stats': {
      const stats = measureStats(root, { ...settings.stats, progress });
      return { value: stats, goals: [statsGoal(stats)] };
    }
    case 'parallel':
      return { value: await measureParallel(root, { ...settings.parallel, progress }), goals: [] };
    case 'executors': {
      const executors = await measureExecutors(root, { ...settings.executors, progress });
      return { value: executors, goals: [executorsGoal(executors)] };
    }
    case 'remote':
      return { value: await measureRemoteQueue(root, { ...settings.remote, progress }), goals: [] };
    case 'sandbox':
      return { value: await measureSandbox(root, { runs: SANDBOX_RUNS, progress }), goals: [] };
    case 'flaky': {
      const flaky = measureFlaky(settings.flaky);
      return { value: flaky, goals: flakyGoals(flaky) };
    }
    case 'clearing':
      return { value: measureClearing(settings.clearing), goals: [] };
    case 'culprits':
      return {
        value: measureCulprits(
          root,
          [8, 16].map((n) => prepareCulpritTemplate(root, n)),
          progress,
        ),
        goals: [],
      };
  }
}

function onlyText(only: Part, value: unknown, goals: readonly Goal[]): string {
  const lines = [`land bench --only ${only}:`, JSON.stringify(value, null, 2)];
  for (const g of goals) lines.push(`goal: ${g.figure}: ${g.measured} (${g.goal}): ${metText(g.met)}`);
  return `${lines.join('\n')}\n`;
}

function command(args: BenchArgs, argv: readonly string[]): string {
  return argv.length ? `npm run bench -- ${argv.join(' ')}` : args.quick ? 'npm run bench -- --quick' : 'npm run bench';
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  let args: BenchArgs;
  try {
    args = parseArgs(argv);
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}`);
    return 2;
  }
  const settings = settingsFor(args);
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'land-bench-')));
  const started = performance.now();
  const progress = (line: string) => process.stderr.write(`bench: ${line} (${((performance.now() - started) / 1000).toFixed(1)}s)\n`);
  progress(`working in ${root}${settings.quick ? ' (--quick)' : ''}`);
  try {
    const host = machine(root);
    if (args.only) {
      const { value, goals } = await measureOne(root, settings, args.only, progress);
      const totalSeconds = Math.round((performance.now() - started) / 100) / 10;
      const out = { command: command(args, argv), date: new Date().toISOString(), machine: host, [args.only]: value, goals, totalSeconds };
      process.stdout.write(args.json ? `${JSON.stringify(out, null, 2)}\n` : onlyText(args.only, value, goals));
      progress(`total ${totalSeconds} s`);
      return 0;
    }
    const partSeconds: Record<string, number> = {};
    const parts = await measureAll(root, settings, progress, partSeconds);
    const totalSeconds = Math.round((performance.now() - started) / 100) / 10;
    const base = { command: command(args, argv), date: new Date().toISOString(), settings, machine: host, ...parts };
    const partial = { ...base, partSeconds, loadAverageAtEnd: loadavg().map(round2), totalSeconds };
    const report: Report = { ...partial, goals: goalsOf(partial) };
    process.stdout.write(args.json ? jsonReport(report) : formatReport(report));
    if (args.markdown) {
      writeFileSync(args.markdown, formatMarkdown(report));
      progress(`wrote ${args.markdown}`);
    }
    progress(`total ${totalSeconds} s`);
    return 0;
  } catch (error) {
    process.stderr.write(`bench failed: ${error instanceof BenchError ? error.message : ((error as Error)?.stack ?? String(error))}\n`);
    return 1;
  } finally {
    if (args.keep) process.stderr.write(`bench: kept ${root}\n`);
    else rmSync(root, { recursive: true, force: true });
  }
}

process.exitCode = await main();
