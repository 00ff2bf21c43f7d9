// Runs the batch command in its own process group, measured and logged. SIGINT, SIGTERM and SIGHUP
// sent to the wrapper are passed to the whole group; the run still ends normally afterwards, so
// the caller always gets a result to write its ledger line from. When whoever started the wrapper
// is gone (`callerGone`: a lane whose ssh session ended), the group gets the signal named, and
// whatever of it is still running `stopGraceMs` later is killed (SIGKILL): nobody is left to stop it.
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { exitStatusOf, reapedChildrenCpuSeconds, startProcess, type Ending, type ExitStatus } from '../proc/index.js';
import type { Env } from './envNames.js';
import { statusOf } from './exitCodes.js';
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
  const batch = startProcess({
    argv: req.command,
    cwd: req.cwd,
    env: req.env,
    stdout: 'pipe',
    stderr: 'pipe',
    forwardSignals: FORWARDED_SIGNALS,
    outputGraceMs: CLOSE_GRACE_MS,
  });
  if (batch.stdout) log.attach(batch.stdout, req.passTo?.stdout ?? process.stdout);
  if (batch.stderr) log.attach(batch.stderr, req.passTo?.stderr ?? process.stderr);
  const sampler = batch.pid === undefined ? null : startSampler(batch.pid, join(req.measureDir, SAMPLES_FILE));

  // The caller is gone: nothing of the batch may run on unrecorded, as its leader or in its group.
  void req.callerGone?.then((signal) => {
    if (batch.stop(signal, req.stopGraceMs ?? CALLER_GONE_GRACE_MS)) log.note(`land batch: the session that started this batch ended; stopping it (${signal})`);
  });

  const ran = await batch.ended;
  const { ending } = ran;
  const exit = ending.kind === 'spawn_failed' ? cannotStart(ending, req.command[0] ?? '', log) : exitStatusOf(ending);
  const sampled = sampler?.stop() ?? { peakRssBytes: null, maxCpuSeconds: 0 };
  log.close();
  const cpuAfter = reapedChildrenCpuSeconds();
  const reaped = cpuBefore === null || cpuAfter === null ? 0 : cpuAfter - cpuBefore;
  return {
    start: ran.startedAt,
    end: ran.endedAt,
    exitCode: exit.code,
    signal: exit.signal,
    status: statusOf(exit.code, exit.signal),
    interruptedBy: ran.interruptedBy,
    cpuSeconds: Math.max(reaped, sampled.maxCpuSeconds),
    peakRssBytes: sampled.peakRssBytes,
  };
}

/** A command that could not be started ends as a shell reports it: 127 when it is not found, else 126. */
function cannotStart(ending: Extract<Ending, { kind: 'spawn_failed' }>, file: string, log: StampedLog): ExitStatus {
  const message = `land batch: cannot start ${JSON.stringify(file)}: ${ending.message}`;
  log.note(message);
  process.stderr.write(`${message}\n`);
  return { code: ending.errno === 'ENOENT' ? 127 : 126, signal: null };
}
