// Runs the built CLI (dist/bin/land.js, next to this compiled file) as a child process and times it.
// Optionally under GNU time, which reports the peak resident set of the process tree it waited for.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { BenchError, childEnv } from './git.js';

export const LAND_BIN = fileURLToPath(new URL('../bin/land.js', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const GNU_TIME = '/usr/bin/time';

export interface Timed {
  ms: number;
  code: number;
  stdout: string;
  stderr: string;
  /** Peak RSS in KiB, when run under GNU time. */
  maxRssKiB: number | null;
}

/** Times `program args` in `cwd` (wall clock around spawnSync). */
export function timed(cwd: string, program: string, args: readonly string[], opts: { rssFile?: string; env?: Record<string, string> } = {}): Timed {
  const [cmd, argv] = opts.rssFile ? [GNU_TIME, ['-f', '%M', '-o', opts.rssFile, program, ...args]] : [program, [...args]];
  const started = performance.now();
  const result = spawnSync(cmd, argv, { cwd, env: childEnv({ CI: '1', NO_COLOR: '1', ...opts.env }), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - started;
  if (result.error) throw new BenchError(`could not run ${program}: ${result.error.message}`);
  let maxRssKiB: number | null = null;
  if (opts.rssFile && existsSync(opts.rssFile)) {
    const value = Number(readFileSync(opts.rssFile, 'utf8').trim().split('\n').pop());
    maxRssKiB = Number.isFinite(value) && value > 0 ? value : null;
    rmSync(opts.rssFile, { force: true });
  }
  return { ms, code: result.status ?? 128, stdout: result.stdout, stderr: result.stderr, maxRssKiB };
}

/** `land args` in `cwd`; a non-zero exit is a BenchError (the set-up or the measured run broke). */
export function land(cwd: string, args: readonly string[], opts: { rssFile?: string; env?: Record<string, string> } = {}): Timed {
  const run = timed(cwd, process.execPath, [LAND_BIN, ...args], opts);
  if (run.code !== 0) throw new BenchError(`land ${args.join(' ')} in ${cwd} exited ${run.code}: ${run.stderr.trim().split('\n').slice(-5).join(' | ')}`);
  return run;
}

/** `land args` in `cwd` without blocking, so two drains can run side by side; a non-zero exit is a BenchError. */
export function landAsync(cwd: string, args: readonly string[]): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [LAND_BIN, ...args], { cwd, env: childEnv({ CI: '1', NO_COLOR: '1' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error) => reject(new BenchError(`could not run land: ${error.message}`)));
    child.on('close', (status) => {
      const ms = performance.now() - started;
      if (status !== 0) reject(new BenchError(`land ${args.join(' ')} in ${cwd} exited ${status}: ${stderr.trim().split('\n').slice(-5).join(' | ')}`));
      else resolve({ ms, code: 0, stdout, stderr, maxRssKiB: null });
    });
  });
}

/** Whether GNU time with -f/-o works here (BusyBox and BSD time differ). */
export function gnuTimeWorks(cwd: string, rssFile: string): boolean {
  if (!existsSync(GNU_TIME)) return false;
  try {
    const probe = timed(cwd, 'true', [], { rssFile });
    return probe.code === 0 && probe.maxRssKiB !== null;
  } catch {
    return false;
  }
}

export interface RunSummary {
  trains: number;
  gateRuns: number;
  landed: string[];
  failed: string[];
  queued: string[];
  window: number;
}

/** The summary object that ends `land run --json`. */
export function runSummary(stdout: string): RunSummary {
  const last = stdout.trim().split('\n').pop() ?? '';
  const parsed = JSON.parse(last) as RunSummary & { type?: string };
  if (parsed.type !== 'summary') throw new BenchError(`land run --json did not end with a summary: ${last.slice(0, 200)}`);
  return parsed;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
