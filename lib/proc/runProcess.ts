// The one way `land` starts a command (git aside, lib/git/): by default in a new process group, so
// that a timeout or a stop takes everything it started, grandchildren included; its output streamed
// where the caller says; optionally this process's signals passed on while it runs; and one tagged
// ending whatever happened. A stop sends a signal, then SIGKILL to the group after a grace period.
// How the leader itself ended decides the ending: a timeout or a stop that comes after it exited
// (while a descendant still held its output) changes nothing but what is killed.
import { spawn, type ChildProcess, type IOType } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { Containment } from './descendants.js';
import { runningInProcessGroup } from './procTree.js';

/** How the process itself ended: its exit code, or the signal that killed it. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export type Ending =
  | { kind: 'exited'; code: number; seconds: number }
  | { kind: 'signaled'; signal: NodeJS.Signals; seconds: number }
  /** The timeout ended the run; `exit` is how the process then ended. */
  | { kind: 'timeout'; seconds: number; exit: ExitStatus }
  /** A stop (stop(), the AbortSignal) ended the run; `exit` is how the process then ended. */
  | { kind: 'stopped'; seconds: number; exit: ExitStatus }
  /** It never ran. `errno` is ENOENT, EACCES, ..., null when there was no command at all. */
  | { kind: 'spawn_failed'; message: string; errno: string | null; seconds: number };

export interface ProcessResult {
  ending: Ending;
  startedAt: Date;
  /** When the process ended and its output was read, before any wait for the rest of its group. */
  endedAt: Date;
  /** The first signal that interrupted the run: passed on from this process, or given to stop(). */
  interruptedBy: NodeJS.Signals | null;
}

/**
 * Where an output stream goes: nowhere (the default), to this process's own (`inherit`), to a
 * stream on the handle for the caller to read (`pipe`), or chunk by chunk to a function.
 */
export type OutputTo = 'ignore' | 'inherit' | 'pipe' | ((chunk: Buffer) => void);

export interface ProcessSpec {
  argv: readonly string[];
  cwd?: string;
  /** The whole environment (default this process's). */
  env?: Record<string, string | undefined>;
  /** `pipe` gives the handle a stdin to write to (default `ignore`). */
  stdin?: 'ignore' | 'pipe';
  stdout?: OutputTo;
  stderr?: OutputTo;
  /** In a new process group, signalled as a whole (default true); false: the child alone. */
  group?: boolean;
  /** After this long the run is stopped (SIGTERM, then SIGKILL) and ends as `timeout`. */
  timeoutMs?: number;
  /** Aborting it stops the run (SIGTERM, then SIGKILL); it ends as `stopped`. */
  signal?: AbortSignal;
  /** Between the stopping signal and SIGKILL (default 2 s). */
  killGraceMs?: number;
  /** Kill whatever the leader left running in its group (and its containment) as soon as it exits. */
  killGroupOnExit?: boolean;
  /**
   * Finds what the run started beyond its process group (lib/proc/descendants.ts): signalled with
   * the group, and killed with it; the run ends only once that kill is done.
   */
  contain?: Containment;
  /**
   * After the leader exits, how long a process still holding its output pipes may keep them open
   * before they are let go of (default: until they close).
   */
  outputGraceMs?: number;
  /** A fourth stream, the child's fd 3, read chunk by chunk (bwrap's --json-status-fd 3). */
  fd3?: (chunk: Buffer) => void;
  /** This process's signals passed on to the child's group while it runs. */
  forwardSignals?: readonly NodeJS.Signals[];
  /** What to do with a forwarded signal instead of passing it on. */
  onSignal?: (signal: NodeJS.Signals, proc: RunningProcess) => void;
}

export interface RunningProcess {
  readonly pid: number | undefined;
  /** With `stdin: 'pipe'`. Write errors (the child gone) are ignored: the ending says it. */
  readonly stdin: Writable | null;
  /** With `stdout: 'pipe'`. */
  readonly stdout: Readable | null;
  /** With `stderr: 'pipe'`. */
  readonly stderr: Readable | null;
  /** Sends a signal (0: none, a test) to the group, or the child alone; false when nothing was there. */
  signal(signal: NodeJS.Signals | 0): boolean;
  /**
   * Sends `signal` (default SIGTERM), and SIGKILL to the group `graceMs` later (default the spec's
   * grace); whatever of the group outlives its leader gets until then too. The run ends as
   * `stopped`. False when the process has already ended.
   */
  stop(signal?: NodeJS.Signals, graceMs?: number): boolean;
  /** Settles once the process has ended and its output is read; never rejects. */
  readonly ended: Promise<ProcessResult>;
}

const DEFAULT_KILL_GRACE_MS = 2_000;
const GROUP_POLL_MS = 50;
const GROUP_GONE_MS = 1_000;

export function runProcess(spec: ProcessSpec): Promise<ProcessResult> {
  return startProcess(spec).ended;
}

export function startProcess(spec: ProcessSpec): RunningProcess {
  const startedAt = new Date();
  const [file, ...args] = spec.argv;
  if (!file) return notStarted('empty command', startedAt);
  const child = spawn(file, args, {
    cwd: spec.cwd,
    env: spec.env,
    detached: spec.group ?? true,
    stdio: [spec.stdin ?? 'ignore', stdioOf(spec.stdout), stdioOf(spec.stderr), ...(spec.fd3 ? (['pipe'] as const) : [])],
  });
  return new ProcessRun(spec, child, startedAt);
}

/** How the process itself ended, or null when it never ran. */
export function exitStatusOf(ending: Exclude<Ending, { kind: 'spawn_failed' }>): ExitStatus;
export function exitStatusOf(ending: Ending): ExitStatus | null;
export function exitStatusOf(ending: Ending): ExitStatus | null {
  switch (ending.kind) {
    case 'exited':
      return { code: ending.code, signal: null };
    case 'signaled':
      return { code: null, signal: ending.signal };
    case 'timeout':
    case 'stopped':
      return ending.exit;
    case 'spawn_failed':
      return null;
    default: {
      const never: never = ending;
      return never;
    }
  }
}

class ProcessRun implements RunningProcess {
  readonly pid: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly ended: Promise<ProcessResult>;
  private settle: (result: ProcessResult) => void = () => undefined;
  private readonly inGroup: boolean;
  private readonly killGraceMs: number;
  private stopping: { why: 'timeout' | 'stopped'; killAt: number; timer: NodeJS.Timeout } | null = null;
  private interruptedBy: NodeJS.Signals | null = null;
  /** The leader has ended (or never started): nothing more is stopped. */
  private over = false;
  /** The leader process has exited: its status is the run's, whatever comes after. */
  private exited = false;
  /** The kill of what the leader left behind, when it exited. */
  private sweep: Promise<void> = Promise.resolve();
  private settled = false;
  private readonly cleanups: (() => void)[] = [];

  constructor(
    private readonly spec: ProcessSpec,
    private readonly child: ChildProcess,
    private readonly startedAt: Date,
  ) {
    this.pid = child.pid;
    this.inGroup = spec.group ?? true;
    this.killGraceMs = spec.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    this.stdin = child.stdin;
    this.stdout = spec.stdout === 'pipe' ? child.stdout : null;
    this.stderr = spec.stderr === 'pipe' ? child.stderr : null;
    this.ended = new Promise((resolve) => (this.settle = resolve));
    if (child.pid !== undefined) spec.contain?.watch(child.pid);
    this.cleanups.push(() => spec.contain?.close());
    child.stdin?.on('error', () => undefined);
    feed(child.stdout, spec.stdout);
    feed(child.stderr, spec.stderr);
    if (spec.fd3) (child.stdio[3] as Readable | null)?.on('data', spec.fd3);
    this.watchEnd();
    this.armStops();
    this.forwardSignals();
  }

  signal(signal: NodeJS.Signals | 0): boolean {
    const pid = this.child.pid;
    if (pid === undefined) return false;
    // A child of its own that has ended may have its pid taken by another process: leave it be.
    if (!this.inGroup && (this.child.exitCode !== null || this.child.signalCode !== null)) return false;
    try {
      process.kill(this.inGroup ? -pid : pid, signal);
      return true;
    } catch {
      return false; // ESRCH: already gone
    }
  }

  stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = this.killGraceMs): boolean {
    if (this.over || this.child.pid === undefined) return false;
    if (this.exited) {
      this.terminate('stopped', signal, graceMs); // kills what is left; the ending stays the exit's
      return false;
    }
    this.interruptedBy ??= signal;
    this.terminate('stopped', signal, graceMs);
    return true;
  }

  /** The first stop wins; later ones change nothing. */
  private terminate(why: 'timeout' | 'stopped', signal: NodeJS.Signals, graceMs: number): void {
    if (this.over || this.stopping || this.child.pid === undefined) return;
    if (this.exited) {
      // Too late to decide anything: the leader's exit did. What it left running goes.
      this.killRest();
      return;
    }
    this.signal(signal);
    this.spec.contain?.signal(signal);
    const timer = setTimeout(() => this.killRest(), graceMs);
    timer.unref();
    this.stopping = { why, killAt: Date.now() + graceMs, timer };
  }

  /** SIGKILL to the group and to everything the containment finds. */
  private killRest(): void {
    this.signal('SIGKILL');
    const contain = this.spec.contain;
    if (contain) this.sweep = Promise.all([this.sweep, contain.killAll()]).then(() => undefined);
  }

  private watchEnd(): void {
    const { child } = this;
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return; // a failed kill(), not a failed start: the ending still comes
      this.finish({ kind: 'spawn_failed', message: error.message, errno: error.code ?? null, seconds: secondsSince(this.startedAt) }, new Date());
    });
    let exit: ExitStatus | null = null;
    let outputGrace: NodeJS.Timeout | undefined;
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      this.exited = true;
      // The leader is gone; whatever it left running in its group (and beyond) goes with it.
      if (this.spec.killGroupOnExit) this.killRest();
      const grace = this.spec.outputGraceMs;
      if (grace === undefined) return;
      // Never wait on an output pipe past the end: a background process may hold it for hours.
      outputGrace = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        void this.leaderEnded({ code, signal });
      }, grace);
    });
    // 'close' comes after every pipe is drained, so no output arrives after the end.
    child.on('close', (code, signal) => {
      clearTimeout(outputGrace);
      void this.leaderEnded(exit ?? { code, signal });
    });
  }

  private armStops(): void {
    const { timeoutMs, signal } = this.spec;
    if (timeoutMs !== undefined) {
      const timer = setTimeout(() => this.terminate('timeout', 'SIGTERM', this.killGraceMs), timeoutMs);
      this.cleanups.push(() => clearTimeout(timer));
    }
    if (signal === undefined) return;
    const onAbort = () => void this.stop();
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    this.cleanups.push(() => signal.removeEventListener('abort', onAbort));
  }

  private forwardSignals(): void {
    const signals = this.spec.forwardSignals ?? [];
    const onSignal = (signal: NodeJS.Signals) => {
      this.interruptedBy ??= signal;
      if (this.spec.onSignal) this.spec.onSignal(signal, this);
      else this.signal(signal);
    };
    for (const signal of signals) process.on(signal, onSignal);
    this.cleanups.push(() => {
      for (const signal of signals) process.off(signal, onSignal);
    });
  }

  private async leaderEnded(exit: ExitStatus): Promise<void> {
    if (this.over || this.child.pid === undefined) return;
    this.over = true;
    const endedAt = new Date();
    const seconds = secondsSince(this.startedAt, endedAt);
    const ending: Ending = this.stopping
      ? { kind: this.stopping.why, seconds, exit }
      : exit.signal
        ? { kind: 'signaled', signal: exit.signal, seconds }
        : { kind: 'exited', code: exit.code ?? 1, seconds };
    await this.waitForStoppedGroup();
    await this.sweep;
    this.finish(ending, endedAt);
  }

  /** A stopped group has until its kill time to end after its leader; then SIGKILL takes the rest. */
  private async waitForStoppedGroup(): Promise<void> {
    const { stopping } = this;
    if (stopping === null || !this.inGroup || this.spec.killGroupOnExit) return;
    while (this.groupRunning() && Date.now() < stopping.killAt) await new Promise((r) => setTimeout(r, GROUP_POLL_MS));
    if (!this.signal('SIGKILL')) return;
    // SIGKILL takes a moment on a busy machine: the run ends once the group is gone (1 s at most).
    const until = Date.now() + GROUP_GONE_MS;
    while (this.groupRunning() && Date.now() < until) await new Promise((r) => setTimeout(r, GROUP_POLL_MS / 5));
  }

  private groupRunning(): boolean {
    const running = this.pid === undefined ? 0 : runningInProcessGroup(this.pid);
    return running === null ? this.signal(0) : running > 0;
  }

  private finish(ending: Ending, endedAt: Date): void {
    if (this.settled) return;
    this.settled = true;
    this.over = true;
    clearTimeout(this.stopping?.timer);
    for (const cleanup of this.cleanups) cleanup();
    // The run is over: nothing more is written to it.
    this.child.stdin?.destroy();
    this.settle({ ending, startedAt: this.startedAt, endedAt, interruptedBy: this.interruptedBy });
  }
}

function notStarted(message: string, at: Date): RunningProcess {
  const ending: Ending = { kind: 'spawn_failed', message, errno: null, seconds: 0 };
  return {
    pid: undefined,
    stdin: null,
    stdout: null,
    stderr: null,
    signal: () => false,
    stop: () => false,
    ended: Promise.resolve({ ending, startedAt: at, endedAt: at, interruptedBy: null }),
  };
}

function stdioOf(to: OutputTo | undefined): IOType {
  if (to === undefined) return 'ignore';
  return typeof to === 'function' ? 'pipe' : to;
}

function feed(stream: Readable | null, to: OutputTo | undefined): void {
  if (stream !== null && typeof to === 'function') stream.on('data', to);
}

function secondsSince(start: Date, end = new Date()): number {
  return Math.round((end.getTime() - start.getTime()) / 10) / 100;
}
