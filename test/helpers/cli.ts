// Runs the built CLI (dist/bin/land.js) as a real child process.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const LAND_BIN = join(ROOT, 'dist', 'bin', 'land.js');
export const FIXTURES = join(ROOT, 'fixtures');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (one object), or each line parsed when it holds several. */
  json<T = any>(): T;
  lines<T = any>(): T[];
}

export function land(cwd: string, args: string[], opts: { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LAND_BIN, ...args], {
      cwd,
      env: { ...process.env, CI: '1', NO_COLOR: '1', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : null;
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout,
        stderr,
        json: () => JSON.parse(stdout),
        lines: () => stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l)),
      });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** Starts the CLI without waiting for it; for tests that signal or race a running drainer. */
export function startLand(cwd: string, args: string[], opts: { env?: Record<string, string | undefined> } = {}) {
  const child = spawn(process.execPath, [LAND_BIN, ...args], {
    cwd,
    env: { ...process.env, CI: '1', NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done, output: () => ({ stdout, stderr }) };
}
