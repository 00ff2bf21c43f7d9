// Runs `land batch` (the built CLI) as a real process with a cleared environment: only PATH, HOME
// and what a test adds (lane variables, a temporary ledger dir).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runningInProcessGroup } from '../../lib/proc/procTree.js';
import { FIXTURES, LAND_BIN } from './cli.js';

export const FAKE_BATCH = join(FIXTURES, 'batch', 'fake-batch.sh');

/** The fixture batch: prints the counted log lines, touches `marker`, sleeps, exits `status`. */
export function fakeBatch(marker: string, status = 0, pauseSeconds = 0): string[] {
  return ['bash', FAKE_BATCH, marker, String(status), String(pauseSeconds)];
}

/** The fixture's counts (see fixtures/batch/fake-batch.sh). */
export const FAKE_COUNTS = {
  timings: { compile: 2, score: 0.25 },
  timingSeconds: 2.25,
  compiled: 4,
  candidates: 5,
  received: 6,
  completionTokens: 1234,
  scored: 5,
  best: 0.875,
};

export function clearedEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...extra };
}

export interface WrapperResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface StartOptions {
  /** Give the wrapper a stdin the test holds (as ssh gives the lane's wrapper its session). */
  stdin?: boolean;
  /** Start it in a process group of its own, which the test can signal as a whole. */
  group?: boolean;
}

export interface StartedLand {
  child: ChildProcess;
  done: Promise<WrapperResult>;
  /** What it has written to stdout so far. */
  stdoutSoFar(): string;
}

export function startLand(cwd: string, args: string[], env: Record<string, string>, opts: StartOptions = {}): StartedLand {
  const child = spawn(process.execPath, [LAND_BIN, ...args], {
    cwd,
    env,
    stdio: [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    detached: opts.group ?? false,
  });
  child.stdin?.on('error', () => undefined);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<WrapperResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done, stdoutSoFar: () => stdout };
}

export function runLand(cwd: string, args: string[], env: Record<string, string>): Promise<WrapperResult> {
  return startLand(cwd, args, env).done;
}

export function batchArgs(job: string, measureDir: string, command: string[]): string[] {
  return ['batch', '--job', job, '--measure-dir', measureDir, '--', ...command];
}

/** Every line of a ledger file, parsed; [] when it does not exist. */
export function ledgerLines(path: string): any[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

export async function waitForFile(path: string, timeoutMs = 10_000): Promise<void> {
  await waitFor(() => existsSync(path), `${path} to appear`, timeoutMs);
}

export async function waitFor(done: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * The fixture batch started through a shell that first writes its pid to `pidFile`: that pid is
 * the batch's process group (the wrapper starts the batch as a group leader; `exec` keeps the pid).
 */
export function pidBatch(pidFile: string, marker: string, status = 0, pauseSeconds = 0): string[] {
  trackBatch(pidFile);
  return ['bash', '-c', 'echo $$ > "$0"; exec bash "$1" "$2" "$3" "$4"', pidFile, FAKE_BATCH, marker, String(status), String(pauseSeconds)];
}

/** How many processes of the batch's group (its pid in `pidFile`) still run; zombies do not count. */
export function batchProcessesLeft(pidFile: string): number {
  const left = runningInProcessGroup(Number(readFileSync(pidFile, 'utf8')));
  if (left === null) throw new Error('/proc cannot be read');
  return left;
}

const tracked = new Set<string>();

/** Remembers a batch's pid file, so that killLeftoverBatches can end it should a test fail. */
export function trackBatch(pidFile: string): string {
  tracked.add(pidFile);
  return pidFile;
}

/** Kills (SIGKILL) what still runs of every tracked batch: a failed test leaves nothing behind. */
export function killLeftoverBatches(): void {
  for (const pidFile of tracked) {
    if (existsSync(pidFile) && batchProcessesLeft(pidFile) > 0) {
      try {
        process.kill(-Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
  tracked.clear();
}
