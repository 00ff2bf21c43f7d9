// `land stats --json` over a long history: a state folder of `jobs` finished jobs (bench/scale.ts's
// records and journal, written directly), whose metrics rows are rewritten as a drain writes them
// (time, window before and after, each gate's results, some failed, bisected, cached and flaky
// trains) and a window.json with a full history. The figure: the median wall time of the command
// (the goal: under a second with 10,000 jobs).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildScaleRepo } from './scale.js';
import { BenchError, childEnv } from './git.js';
import { LAND_BIN, land, median } from './land.js';

const GNU_TIME = '/usr/bin/time';

export interface StatsRow {
  jobs: number;
  /** Metrics rows (trains) in the history. */
  trains: number;
  /** Median wall ms of `land stats --json` (after one warm-up). */
  statsMs: number;
  /**
   * Median CPU ms (user + system) of the same runs, through GNU time; null without it. On a shared,
   * loaded machine the wall time is the CPU time stretched by the wait for a core: this one is not.
   */
  statsCpuMs: number | null;
  runs: number;
  buildSeconds: number;
}

/** The time a bench job id stands for (bench/scale.ts slot: j-YYYYMMDD-NNNN, one a minute). */
function timeOfId(id: string): number {
  const match = /^j-(\d{4})(\d{2})(\d{2})-(\d{4})$/.exec(id);
  if (!match) return Date.UTC(2026, 0, 1);
  const [, y, m, d, n] = match;
  return Date.UTC(Number(y), Number(m) - 1, Number(d)) + (Number(n) - 1) * 60_000;
}

const result = (name: string, seconds: number, status = 'exit 0') => ({ name, outcome: 'exited', status, seconds });

/** A scale row (train, members, a PASS) as the drain writes it, the k-th of the history. */
function drainRow(row: { train: string; members: string[] }, k: number): object {
  const at = new Date(timeOfId(row.members.at(-1) ?? '') + 30_000).toISOString();
  const sizes = [8, 8, 4, 2, 4, 8];
  const windowBefore = sizes[k % sizes.length] as number;
  const windowAfter = sizes[(k + 1) % sizes.length] as number;
  const lint = result('lint', 1 + (k % 7) * 0.1);
  const base = { ...row, at, attempt: 1, kind: 'merge', windowBefore, windowAfter, flaky: false };
  if (k % 10 === 9) {
    const results = [lint, result('test', 20 + (k % 11), 'exit 1')];
    return {
      ...base,
      verdict: 'FAIL',
      reason: 'gate',
      landed: false,
      cached: false,
      gateSeconds: 25,
      gate: { mode: 'full', executed: ['lint', 'test'], results },
    };
  }
  if (k % 7 === 6) {
    return { ...base, verdict: 'PASS', reason: null, landed: true, cached: true, gateSeconds: 0, gate: { mode: 'cached', source: 'cache', executed: [] } };
  }
  const results = [lint, result('test', 20 + (k % 13))];
  const gate = { mode: 'full', executed: ['lint', 'test'], results };
  if (k % 13 === 12) {
    const failed = [lint, result('test', 19, 'exit 1')];
    const run = (n: number, verdict: string, rs: object[]) => ({
      run: n,
      train: `${row.train}-r${n}`,
      cached: false,
      verdict,
      reason: null,
      gate: null,
      status: null,
      seconds: 21,
      log: null,
      results: rs,
    });
    return {
      ...base,
      verdict: 'PASS',
      reason: null,
      landed: true,
      cached: false,
      flaky: true,
      gateSeconds: 42,
      gate,
      runs: [run(1, 'FAIL', failed), run(2, 'PASS', results)],
    };
  }
  return { ...base, verdict: 'PASS', reason: null, landed: true, cached: false, gateSeconds: 22, gate };
}

function rewriteHistory(metricsPath: string, windowPath: string): number {
  const rows = readFileSync(metricsPath, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { train: string; members: string[] });
  writeFileSync(metricsPath, `${rows.map((row, k) => JSON.stringify(drainRow(row, k))).join('\n')}\n`);
  const history = rows.slice(-50).map((row, k) => ({
    at: new Date(timeOfId(row.members.at(-1) ?? '') + 30_000).toISOString(),
    event: k % 10 === 9 ? 'FAIL' : 'PASS',
    before: 8,
    after: k % 10 === 9 ? 4 : 8,
    train: row.train,
    jobs: row.members.length,
    culprits: 0,
  }));
  writeFileSync(windowPath, `${JSON.stringify({ size: 8, history })}\n`);
  return rows.length;
}

export function measureStats(root: string, opts: { jobs: number; runs: number; progress: (line: string) => void }): StatsRow {
  opts.progress(`stats: writing ${opts.jobs} finished job records and their metrics rows`);
  const built = buildScaleRepo(root, `stats-${opts.jobs}`, opts.jobs, 0, 0, (message) => opts.progress(`stats: ${message}`));
  const trains = rewriteHistory(built.store.paths.metrics, built.store.paths.window);
  const warm = JSON.parse(land(built.dir, ['stats', '--json']).stdout) as { jobs: { total: number }; trains: { total: number } };
  if (warm.jobs.total !== opts.jobs || warm.trains.total !== trains) {
    throw new BenchError(
      `stats: land stats counts ${warm.jobs.total} jobs and ${warm.trains.total} trains in ${built.dir}, expected ${opts.jobs} and ${trains}`,
    );
  }
  opts.progress(`stats: built in ${built.seconds.toFixed(1)}s; timing land stats --json`);
  const statsMs = median(Array.from({ length: opts.runs }, () => land(built.dir, ['stats', '--json']).ms));
  const cpu = Array.from({ length: opts.runs }, () => cpuMs(built.dir, ['stats', '--json'], join(root, 'stats-cpu.txt')));
  const statsCpuMs = cpu.every((v): v is number => v !== null) ? Math.round(median(cpu) * 10) / 10 : null;
  return { jobs: opts.jobs, trains, statsMs: Math.round(statsMs * 10) / 10, statsCpuMs, runs: opts.runs, buildSeconds: Math.round(built.seconds * 10) / 10 };
}

/** CPU ms (user + system) of `land args` through GNU time (-f '%U %S'); null where it is not there. */
function cpuMs(cwd: string, args: readonly string[], file: string): number | null {
  if (!existsSync(GNU_TIME)) return null;
  const run = spawnSync(GNU_TIME, ['-f', '%U %S', '-o', file, process.execPath, LAND_BIN, ...args], {
    cwd,
    env: childEnv({ CI: '1', NO_COLOR: '1' }),
    stdio: 'ignore',
  });
  if (run.status !== 0 || !existsSync(file)) return null;
  const [user, system] = readFileSync(file, 'utf8').trim().split('\n').pop()?.split(' ').map(Number) ?? [];
  rmSync(file, { force: true });
  return user !== undefined && system !== undefined && Number.isFinite(user + system) ? (user + system) * 1000 : null;
}
