// Runs one command in its own process group, so a timeout or a stop can kill everything it
// started (grandchildren included) and nothing is left behind.
import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { LastLine } from './lastLine.js';

export type GroupOutcome =
  | { kind: 'exited'; code: number; seconds: number }
  | { kind: 'signaled'; signal: string; seconds: number }
  | { kind: 'timeout'; seconds: number }
  | { kind: 'stopped'; seconds: number }
  | { kind: 'spawn_failed'; message: string; seconds: number };

/** How the command ended, and the last non-empty line it wrote to stderr (null when none). */
export type GroupResult = GroupOutcome & { lastStderrLine: string | null };

export interface GroupCommand {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutSeconds: number;
  output: Writable;
  signal?: AbortSignal;
}

const KILL_GRACE_MS = 2_000;

/** How a command ended, for logs and messages: "exit 1", "timed out", "signal SIGKILL". */
export function outcomeText(outcome: GroupOutcome): string {
  switch (outcome.kind) {
    case 'exited': return `exit ${outcome.code}`;
    case 'signaled': return `signal ${outcome.signal}`;
    case 'timeout': return 'timed out';
    case 'stopped': return 'stopped';
    case 'spawn_failed': return `could not start: ${outcome.message}`;
    default: {
      const never: never = outcome;
      return String(never);
    }
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

export function runInGroup(cmd: GroupCommand): Promise<GroupResult> {
  const started = Date.now();
  const elapsed = () => Math.round((Date.now() - started) / 10) / 100;
  return new Promise((resolve) => {
    const [file, ...args] = cmd.argv;
    if (!file) {
      resolve({ kind: 'spawn_failed', message: 'empty command', seconds: 0, lastStderrLine: null });
      return;
    }
    let ending: 'timeout' | 'stopped' | null = null;
    let settled = false;
    const child = spawn(file, args, { cwd: cmd.cwd, env: cmd.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => cmd.output.write(chunk));
    // The output goes to the log whole; only the last stderr line is remembered besides, for
    // the message of a gate that could not start ("sh: 1: mytset: not found").
    const stderrTail = new LastLine();
    child.stderr?.on('data', (chunk: Buffer) => {
      cmd.output.write(chunk);
      stderrTail.write(chunk);
    });

    const terminate = (why: 'timeout' | 'stopped') => {
      if (ending || child.pid === undefined) return;
      ending = why;
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => child.pid !== undefined && killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS).unref();
    };
    const timer = setTimeout(() => terminate('timeout'), cmd.timeoutSeconds * 1000);
    const onAbort = () => terminate('stopped');
    if (cmd.signal?.aborted) onAbort();
    else cmd.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (outcome: GroupOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      cmd.signal?.removeEventListener('abort', onAbort);
      resolve({ ...outcome, lastStderrLine: stderrTail.last() });
    };
    child.on('error', (error) => finish({ kind: 'spawn_failed', message: error.message, seconds: elapsed() }));
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // The leader is gone; whatever it left running in its group goes with it.
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
    });
    // 'close' comes after every pipe is drained, so no output arrives after we resolve.
    child.on('close', (code, signal) => {
      const status = exit ?? { code, signal };
      if (ending) finish({ kind: ending, seconds: elapsed() });
      else if (status.signal) finish({ kind: 'signaled', signal: status.signal, seconds: elapsed() });
      else finish({ kind: 'exited', code: status.code ?? 1, seconds: elapsed() });
    });
  });
}
