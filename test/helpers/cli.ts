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

/**
 * Commands that always run as a real process: repro and prove (they start gates in a checkout of
 * their own and wait on signals), batch (it wraps a provider). `land run` runs in process like the
 * rest (its gates are processes anyway; it removes its signal handlers when it ends): the tests of
 * what needs its process (signals, kills, races, --watch) start it with startLand.
 */
const PROCESS_ONLY = new Set(['repro', 'prove', 'batch']);

/** `LAND_TEST_PROCESS=1 npm test` runs every CLI call as a real process (docs/development.md). */
const ALWAYS_PROCESS = process.env.LAND_TEST_PROCESS === '1';

let inProcessBusy = false;

type LandOptions = { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number };

/** Whether a call can run in this test's process: see {@link land}. */
function inProcessFits(args: readonly string[], opts: LandOptions, command: string | undefined): boolean {
  if (ALWAYS_PROCESS || inProcessBusy) return false;
  if (opts.input !== undefined || opts.timeoutMs !== undefined) return false;
  if (opts.env && Object.keys(opts.env).some((name) => name.startsWith('LAND_FAILPOINT'))) return false;
  return command !== undefined && !PROCESS_ONLY.has(command) && !args.includes('--wait');
}

/**
 * Runs the CLI to its end. A command that starts no gate runs in this process, through the same
 * `main(argv)` that bin/land.js calls (its output captured, its exit status read back), which
 * spares a Node start per call; `run`, `repro`, `prove`, `batch`, `--wait`, stdin input, a
 * timeout, an armed failpoint, and a call made while another is still running (a race the test
 * wants) start the built CLI as a real process, as {@link landProcess} always does.
 */
export async function land(cwd: string, args: string[], opts: LandOptions = {}): Promise<CliResult> {
  const { commandNamed } = await import('../../lib/cli/program.js');
  if (!inProcessFits(args, opts, commandNamed(args))) return landProcess(cwd, args, opts);
  inProcessBusy = true;
  try {
    const { code, stdout, stderr } = await runInProcess(cwd, args, opts.env ?? {});
    return cliResult(code, stdout, stderr);
  } finally {
    inProcessBusy = false;
  }
}

/** Runs `main` with `-C cwd`, the child's environment additions and stdout/stderr captured. */
async function runInProcess(cwd: string, args: string[], env: Record<string, string | undefined>) {
  const { main } = await import('../../lib/cli/main.js');
  const added: Record<string, string | undefined> = { CI: '1', NO_COLOR: '1', ...env };
  const saved = Object.fromEntries(Object.keys(added).map((name) => [name, process.env[name]]));
  const streams = [process.stdout, process.stderr] as const;
  const writes = streams.map((stream) => stream.write);
  const ttys = streams.map((stream) => Object.getOwnPropertyDescriptor(stream, 'isTTY'));
  const captured = ['', ''];
  streams.forEach((stream, i) => {
    // A child's stdout and stderr are pipes: help is wrapped at 80 columns, nothing is colored.
    Object.defineProperty(stream, 'isTTY', { value: false, configurable: true, writable: true });
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      captured[i] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof stream.write;
  });
  setEnv(added);
  process.exitCode = undefined;
  try {
    await main([process.execPath, LAND_BIN, '-C', cwd, ...args]);
    return { code: Number(process.exitCode ?? 0), stdout: captured[0] ?? '', stderr: captured[1] ?? '' };
  } finally {
    process.exitCode = undefined;
    setEnv(saved);
    streams.forEach((stream, i) => {
      stream.write = writes[i] as typeof stream.write;
      const tty = ttys[i];
      if (tty) Object.defineProperty(stream, 'isTTY', tty);
      else delete (stream as { isTTY?: boolean }).isTTY;
    });
  }
}

function setEnv(values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

/** Runs the built CLI as a real child process to its end. */
export async function landProcess(cwd: string, args: string[], opts: LandOptions = {}): Promise<CliResult> {
  const run = startLand(cwd, args, opts);
  const timer = opts.timeoutMs ? setTimeout(() => run.child.kill('SIGKILL'), opts.timeoutMs) : null;
  const { code, signal, stdout, stderr } = await run.done;
  if (timer) clearTimeout(timer);
  return cliResult(code ?? (signal ? 128 : 1), stdout, stderr);
}

function cliResult(code: number, stdout: string, stderr: string): CliResult {
  return {
    code,
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
