// Runs `land batch` (the built CLI) as a real process with a cleared environment: only PATH, HOME
// and what a test adds (lane variables, a temporary ledger dir).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, LAND_BIN } from '../helpers/cli.js';

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

export function startLand(cwd: string, args: string[], env: Record<string, string>): { child: ChildProcess; done: Promise<WrapperResult> } {
  const child = spawn(process.execPath, [LAND_BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<WrapperResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
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
  return readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
}

export async function waitForFile(path: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${path}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
