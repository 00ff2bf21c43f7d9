// The process runner with real child processes: how each run ends, that a stop or a timeout takes
// the whole group (grandchildren that ignore SIGTERM included), that output streams while the
// command runs, and that this process's signals reach the group only while it runs.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exitStatusOf, runProcess, startProcess } from '../../lib/proc/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'land-proc-'));
  dirs.push(dir);
  return dir;
}

/** Whether a process is alive (a zombie waiting to be reaped counts as gone). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function pidIn(file: string): number {
  return Number(readFileSync(file, 'utf8').trim());
}

function fileHasPid(file: string): boolean {
  try {
    return /^\d+\s*$/.test(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

describe('runProcess: how a run ends', () => {
  it('an exit code', async () => {
    const { ending } = await runProcess({ argv: ['sh', '-c', 'exit 3'] });
    expect(ending).toMatchObject({ kind: 'exited', code: 3 });
    expect(exitStatusOf(ending)).toEqual({ code: 3, signal: null });
  });

  it('a signal death', async () => {
    const { ending } = await runProcess({ argv: ['sh', '-c', 'kill -KILL $$'] });
    expect(ending).toMatchObject({ kind: 'signaled', signal: 'SIGKILL' });
    expect(exitStatusOf(ending)).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('a program that does not exist, and no command at all: spawn_failed', async () => {
    const missing = await runProcess({ argv: ['/nonexistent/land-no-such-program', 'x'] });
    expect(missing.ending).toMatchObject({ kind: 'spawn_failed', errno: 'ENOENT' });
    expect(exitStatusOf(missing.ending)).toBeNull();
    const empty = await runProcess({ argv: [] });
    expect(empty.ending).toMatchObject({ kind: 'spawn_failed', errno: null, message: 'empty command', seconds: 0 });
  });

  it('a timeout stops the whole group: a grandchild that ignores SIGTERM is killed after the grace', async () => {
    const dir = scratch();
    const pidFile = join(dir, 'grandchild');
    const started = Date.now();
    const { ending } = await runProcess({
      argv: ['sh', '-c', 'trap "" TERM; sleep 30 & echo $! > "$0"; wait', pidFile],
      timeoutMs: 300,
      killGraceMs: 200,
    });
    expect(ending).toMatchObject({ kind: 'timeout', exit: { code: null, signal: 'SIGKILL' } });
    expect(Date.now() - started).toBeLessThan(5_000);
    await waitFor(() => !alive(pidIn(pidFile)), 'the grandchild to be gone', 2_000);
  });

  it('an abort stops the run; a leader that ends on SIGTERM still has its group killed after the grace', async () => {
    const dir = scratch();
    const pidFile = join(dir, 'grandchild');
    const abort = new AbortController();
    const running = startProcess({
      argv: ['sh', '-c', '(trap "" TERM; exec sleep 30) & echo $! > "$0"; wait', pidFile],
      signal: abort.signal,
      killGraceMs: 300,
      outputGraceMs: 100,
    });
    await waitFor(() => fileHasPid(pidFile), 'the grandchild to start');
    await new Promise((r) => setTimeout(r, 100)); // let it set its trap
    abort.abort();
    const { ending, interruptedBy } = await running.ended;
    expect(ending).toMatchObject({ kind: 'stopped', exit: { code: null, signal: 'SIGTERM' } });
    expect(interruptedBy).toBe('SIGTERM');
    expect(alive(pidIn(pidFile))).toBe(false);
    expect(running.stop()).toBe(false);
  });

  it('an AbortSignal already aborted stops the run at once', async () => {
    const { ending } = await runProcess({ argv: ['sleep', '30'], signal: AbortSignal.abort() });
    expect(ending).toMatchObject({ kind: 'stopped', exit: { signal: 'SIGTERM' } });
  });
});

describe('runProcess: output', () => {
  it('streams output while the command runs, to functions per stream', async () => {
    let out = '';
    let err = '';
    const running = startProcess({
      argv: ['sh', '-c', 'echo first; echo oops >&2; sleep 30; echo never'],
      stdout: (chunk) => (out += chunk.toString()),
      stderr: (chunk) => (err += chunk.toString()),
    });
    await waitFor(() => out.includes('first\n') && err.includes('oops\n'), 'the first lines');
    expect(running.stop()).toBe(true);
    const { ending } = await running.ended;
    expect(ending.kind).toBe('stopped');
    expect(out).toBe('first\n');
    expect(err).toBe('oops\n');
  });

  it('pipes stdin and stdout as streams for the caller', async () => {
    const running = startProcess({ argv: ['tr', 'a-z', 'A-Z'], stdin: 'pipe', stdout: 'pipe' });
    let out = '';
    running.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    running.stdin?.end('hello\n');
    expect((await running.ended).ending).toMatchObject({ kind: 'exited', code: 0 });
    expect(out).toBe('HELLO\n');
  });

  it('never waits on an output pipe past the end: a background process holding it is let go after the grace', async () => {
    const started = Date.now();
    let out = '';
    const { ending } = await runProcess({ argv: ['sh', '-c', 'sleep 3 & echo done'], stdout: (chunk) => (out += chunk.toString()), outputGraceMs: 100 });
    expect(ending).toMatchObject({ kind: 'exited', code: 0 });
    expect(out).toBe('done\n');
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('killGroupOnExit: what the leader left running goes with it', async () => {
    const dir = scratch();
    const pidFile = join(dir, 'background');
    const started = Date.now();
    const { ending } = await runProcess({ argv: ['sh', '-c', 'sleep 30 & echo $! > "$0"', pidFile], stdout: () => undefined, killGroupOnExit: true });
    expect(ending).toMatchObject({ kind: 'exited', code: 0 });
    expect(Date.now() - started).toBeLessThan(5_000);
    await waitFor(() => !alive(pidIn(pidFile)), 'the background process to be gone', 2_000);
  });
});

describe('runProcess: this process signals', () => {
  const ready = (text: () => string) => waitFor(() => text().includes('ready'), 'the command to be ready');

  it('passes a forwarded signal to the group, records it, and lets go of the signal at the end', async () => {
    const before = process.listenerCount('SIGUSR2');
    let out = '';
    const running = startProcess({
      argv: ['sh', '-c', 'trap "echo got; exit 7" USR2; echo ready; while :; do sleep 0.05; done'],
      stdout: (chunk) => (out += chunk.toString()),
      forwardSignals: ['SIGUSR2'],
    });
    expect(process.listenerCount('SIGUSR2')).toBe(before + 1);
    await ready(() => out);
    process.kill(process.pid, 'SIGUSR2');
    const { ending, interruptedBy } = await running.ended;
    expect(ending).toMatchObject({ kind: 'exited', code: 7 });
    expect(interruptedBy).toBe('SIGUSR2');
    expect(out).toContain('got');
    expect(process.listenerCount('SIGUSR2')).toBe(before);
  });

  it('onSignal replaces passing the signal on (the child alone, not in a group of its own)', async () => {
    let out = '';
    const seen: string[] = [];
    const running = startProcess({
      argv: ['sh', '-c', 'trap "echo usr2" USR2; echo ready; read line; echo "read $line"'],
      group: false,
      stdin: 'pipe',
      stdout: (chunk) => (out += chunk.toString()),
      forwardSignals: ['SIGUSR2'],
      onSignal: (signal, proc) => {
        seen.push(signal);
        proc.stdin?.end(`${signal}\n`);
      },
    });
    await ready(() => out);
    process.kill(process.pid, 'SIGUSR2');
    const { ending, interruptedBy } = await running.ended;
    expect(ending).toMatchObject({ kind: 'exited', code: 0 });
    expect(seen).toEqual(['SIGUSR2']);
    expect(interruptedBy).toBe('SIGUSR2');
    expect(out).toContain('read SIGUSR2');
    expect(out).not.toContain('usr2\n');
  });
});
