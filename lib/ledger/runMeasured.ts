// Runs the batch command in its own process group, measured and logged. SIGINT, SIGTERM and SIGHUP
// sent to the wrapper are passed to the whole group; the run still ends normally afterwards, so
// the caller always gets a result to write its ledger line from.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Env } from './envNames.js';
import { statusOf } from './exitCodes.js';
import { reapedChildrenCpuSeconds } from './procTree.js';
import { startSampler } from './sampler.js';
import { StampedLog } from './stampedLog.js';

export const BATCH_LOG = 'batch.log';
export const SAMPLES_FILE = 'samples.jsonl';
const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
// After the command exits, how long a background process still holding its output may keep the
// log open before the wrapper stops reading.
const CLOSE_GRACE_MS = 1_000;

export interface RunRequest {
  command: readonly string[];
  cwd: string;
  env: Env;
  measureDir: string;
  onLine: (line: string) => void;
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
  log.attach(child.stdout, process.stdout);
  log.attach(child.stderr, process.stderr);
  const sampler = child.pid === undefined ? null : startSampler(child.pid, join(req.measureDir, SAMPLES_FILE));

  let interruptedBy: NodeJS.Signals | null = null;
  const forward = (signal: NodeJS.Signals) => {
    interruptedBy ??= signal;
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // The group has already exited.
    }
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);

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
