// Runs the batch command in its own process group, measured and logged. SIGINT, SIGTERM and SIGHUP
// sent to the wrapper are passed to the whole group; the run still ends normally afterwards, so
// the caller always gets a result to write its ledger line from. When whoever started the wrapper
// is gone (`callerGone`: a lane whose ssh session ended), the group gets the signal named, and
// whatever of it is still running `stopGraceMs` later is killed (SIGKILL): nobody is left to stop it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { Env } from './envNames.js';
import { statusOf } from './exitCodes.js';
import { reapedChildrenCpuSeconds, runningInProcessGroup } from '../proc/procTree.js';
import { startSampler } from './sampler.js';
import { StampedLog } from './stampedLog.js';

export const BATCH_LOG = 'batch.log';
export const SAMPLES_FILE = 'samples.jsonl';
const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
// After the command exits, how long a background process still holding its output may keep the
// log open before the wrapper stops reading.
const CLOSE_GRACE_MS = 1_000;
// With the caller gone, how long the group has to end after its signal before it is killed.
export const CALLER_GONE_GRACE_MS = 10_000;
const GROUP_POLL_MS = 50;

export interface RunRequest {
  command: readonly string[];
  cwd: string;
  env: Env;
  measureDir: string;
  onLine: (line: string) => void;
  /** Resolves, with the signal to stop the batch with, when the wrapper's caller is gone. */
  callerGone?: Promise<NodeJS.Signals>;
  /** How long the group has to end after that before SIGKILL (default CALLER_GONE_GRACE_MS). */
  stopGraceMs?: number;
  /** Where the output is passed through (default this process's stdout and stderr). */
  passTo?: { stdout: Writable; stderr: Writable };
}

export interface MeasuredRun {
  start: Date;
  end: Date;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  status: number;
  interruptedBy: NodeJS.Signals | null;
  cpuSeconds: number;
  peakRssBytes: number | null;
}

export async function runMeasured(req: RunRequest): Promise<MeasuredRun> {
  const log = new StampedLog(join(req.measureDir, BATCH_LOG), req.onLine);
  const cpuBefore = reapedChildrenCpuSeconds();
  const start = new Date();
  const [file = '', ...args] = req.command;
  const child = spawn(file, args, { cwd: req.cwd, env: req.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  log.attach(child.stdout, req.passTo?.stdout ?? process.stdout);
  log.attach(child.stderr, req.passTo?.stderr ?? process.stderr);
  const sampler = child.pid === undefined ? null : startSampler(child.pid, join(req.measureDir, SAMPLES_FILE));

  let interruptedBy: NodeJS.Signals | null = null;
  const signalGroup = (signal: NodeJS.Signals | 0): boolean => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
      return child.pid !== undefined;
    } catch {
      return false; // the group has already exited
    }
  };
  const groupRunning = (): boolean => {
    const running = child.pid === undefined ? 0 : runningInProcessGroup(child.pid);
    return running === null ? signalGroup(0) : running > 0;
  };
  const forward = (signal: NodeJS.Signals) => {
    interruptedBy ??= signal;
    signalGroup(signal);
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);

  // Set once the caller is gone: when whatever still runs of the group is killed.
  const stopping: { finished: boolean; killAt: number | null; timer?: NodeJS.Timeout } = { finished: false, killAt: null };
  void req.callerGone?.then((signal) => {
    if (stopping.finished) return;
    log.note(`land batch: the session that started this batch ended; stopping it (${signal})`);
    forward(signal);
    const grace = req.stopGraceMs ?? CALLER_GONE_GRACE_MS;
    stopping.killAt = Date.now() + grace;
    stopping.timer = setTimeout(() => signalGroup('SIGKILL'), grace);
  });

  const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('error', (error: NodeJS.ErrnoException) => {
      log.note(`land batch: cannot start ${JSON.stringify(file)}: ${error.message}`);
      process.stderr.write(`land batch: cannot start ${JSON.stringify(file)}: ${error.message}\n`);
      resolve({ code: error.code === 'ENOENT' ? 127 : 126, signal: null });
    });
    child.on('exit', (code, signal) => {
      const timer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        resolve({ code, signal });
      }, CLOSE_GRACE_MS);
      child.on('close', () => {
        clearTimeout(timer);
        resolve({ code, signal });
      });
    });
  });

  const end = new Date();
  stopping.finished = true;
  // The caller is gone: nothing of the batch may run on unrecorded, as its leader or in its group.
  const { killAt } = stopping;
  if (killAt !== null) {
    while (groupRunning() && Date.now() < killAt) await new Promise((r) => setTimeout(r, GROUP_POLL_MS));
    signalGroup('SIGKILL');
  }
  clearTimeout(stopping.timer);
  for (const signal of FORWARDED_SIGNALS) process.off(signal, forward);
  const sampled = sampler?.stop() ?? { peakRssBytes: null, maxCpuSeconds: 0 };
  log.close();
  const cpuAfter = reapedChildrenCpuSeconds();
  const reaped = cpuBefore === null || cpuAfter === null ? 0 : cpuAfter - cpuBefore;
  return {
    start,
    end,
    exitCode: ended.code,
    signal: ended.signal,
    status: statusOf(ended.code, ended.signal),
    interruptedBy,
    cpuSeconds: Math.max(reaped, sampled.maxCpuSeconds),
    peakRssBytes: sampled.peakRssBytes,
  };
}
