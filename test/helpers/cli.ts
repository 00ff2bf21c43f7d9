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

/** Starts the CLI without waiting for it; for tests that signal or race a running drainer. */
export function startLand(cwd: string, args: string[], opts: { env?: Record<string, string | undefined>; input?: string } = {}) {
  const child = spawn(process.execPath, [LAND_BIN, ...args], {
    cwd,
    env: { ...process.env, CI: '1', NO_COLOR: '1', ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.on('error', () => undefined);
  child.stdin.end(opts.input ?? '');
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done, output: () => ({ stdout, stderr }) };
}

/** Runs the CLI to its end. */
export async function land(
  cwd: string,
  args: string[],
  opts: { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const run = startLand(cwd, args, opts);
  const timer = opts.timeoutMs ? setTimeout(() => run.child.kill('SIGKILL'), opts.timeoutMs) : null;
  const { code, signal, stdout, stderr } = await run.done;
  if (timer) clearTimeout(timer);
  return {
    code: code ?? (signal ? 128 : 1),
    stdout,
    stderr,
    json: () => JSON.parse(stdout),
    lines: () =>
      stdout
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l)),
  };
}
