// Talking to an ssh lane: check it answers, run the batch there, copy its measure dir back.
// ssh never prompts (BatchMode) and gives up on a lane that does not answer within 5 seconds.
// The program is the lane's sshProgram (LAND_SSH, default `ssh`): anything that takes ssh's
// options, a host and a remote command, and exits with the remote command's status or 255.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { statusOf } from './exitCodes.js';
import type { Lane } from './lanePlan.js';
import { sessionStopMessage } from './laneSession.js';

// ssh's own status when it could not connect (or the connection failed).
export const SSH_FAILED = 255;

export function sshArgs(lane: Lane, remoteCommand: string): string[] {
  const config = lane.sshConfig === undefined ? [] : ['-F', lane.sshConfig];
  return ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', ...config, lane.ssh, remoteCommand];
}

function startSsh(lane: Lane, remoteCommand: string, stdio: StdioOptions): ChildProcess {
  return spawn(lane.sshProgram, sshArgs(lane, remoteCommand), { stdio });
}

export type ProbeResult = { kind: 'ok' } | { kind: 'unreachable'; detail: string } | { kind: 'unusable'; detail: string };

export async function probeLane(lane: Lane, probeCommand: string): Promise<ProbeResult> {
  const child = startSsh(lane, probeCommand, ['ignore', 'ignore', 'pipe']);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ended = await endOf(child);
  if (ended.startError !== null) return { kind: 'unreachable', detail: `cannot start ${lane.sshProgram}: ${ended.startError}` };
  const code = ended.code;
  const detail = lastLine(stderr);
  if (code === 0) return { kind: 'ok' };
  if (code === SSH_FAILED || code === null) return { kind: 'unreachable', detail };
  return { kind: 'unusable', detail: detail || `${lane.dir} or ${lane.land} is missing on the lane` };
}

// After a signal, how long the lane's wrapper has to stop the batch and write its ledger line
// before this side ends the session: its own grace before SIGKILL (runMeasured) and a margin.
export const LANE_STOP_WAIT_MS = 15_000;

/**
 * Runs the batch on the lane with this terminal's output. The session's stdin stays open for the
 * whole batch (the lane's wrapper takes its end as this side being gone). A signal to the wrapper
 * writes its name there and ends it, then waits up to LANE_STOP_WAIT_MS for the lane to stop the
 * batch and write its ledger line; a second signal, or the end of that wait, ends ssh at once.
 */
export async function runOnLane(
  lane: Lane,
  remoteCommand: string,
  note: (line: string) => void,
): Promise<{ status: number; interruptedBy: NodeJS.Signals | null }> {
  const child = startSsh(lane, remoteCommand, ['pipe', 'inherit', 'inherit']);
  // ssh gone (killed with this side's terminal, or the connection lost): nothing to write to.
  child.stdin?.on('error', () => undefined);
  let interruptedBy: NodeJS.Signals | null = null;
  let giveUp: NodeJS.Timeout | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interruptedBy !== null) {
      child.kill(signal);
      return;
    }
    interruptedBy = signal;
    note(`land batch: ${signal}: stopping the batch on ${lane.ssh}; it writes its ledger line there (waiting up to ${LANE_STOP_WAIT_MS / 1000} s, a second signal stops waiting)`);
    child.stdin?.end(sessionStopMessage(signal));
    giveUp = setTimeout(() => child.kill('SIGTERM'), LANE_STOP_WAIT_MS);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, onSignal);
  const ended = await endOf(child);
  clearTimeout(giveUp);
  child.stdin?.destroy();
  for (const signal of signals) process.off(signal, onSignal);
  return { status: ended.code === null && ended.signal === null ? SSH_FAILED : statusOf(ended.code, ended.signal), interruptedBy };
}

/**
 * Copies the lane's measure dir into `localDir`, through a fresh folder first so that a lane that
 * shares this machine's disk never has its files truncated while they are being read.
 */
export async function pullMeasureDir(lane: Lane, pullCommand: string, localDir: string): Promise<{ ok: true } | { ok: false; detail: string }> {
  mkdirSync(localDir, { recursive: true });
  const incoming = mkdtempSync(join(dirname(localDir), '.land-measure-'));
  try {
    const ssh = startSsh(lane, pullCommand, ['ignore', 'pipe', 'pipe']);
    const tar = spawn('tar', ['-C', incoming, '-xf', '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
    ssh.stdout?.pipe(tar.stdin);
    tar.stdin.on('error', () => undefined);
    let sshErr = '';
    let tarErr = '';
    ssh.stderr?.on('data', (chunk: Buffer) => (sshErr += chunk.toString()));
    tar.stderr.on('data', (chunk: Buffer) => (tarErr += chunk.toString()));
    const tarEnded = exitOf(tar);
    const sshEnded = await endOf(ssh);
    // A program that never started never ends tar's input.
    if (sshEnded.startError !== null) tar.stdin.end();
    const tarCode = await tarEnded;
    if (sshEnded.startError !== null) return { ok: false, detail: `cannot start ${lane.sshProgram}: ${sshEnded.startError}` };
    // When ssh failed, tar's complaint about an empty stream is only a consequence.
    if (sshEnded.code !== 0) return { ok: false, detail: lastLine(sshErr) || 'there is no measure dir on the lane' };
    if (tarCode !== 0) return { ok: false, detail: lastLine(tarErr) || `tar exited ${tarCode}` };
    cpSync(incoming, localDir, { recursive: true, force: true });
    return { ok: true };
  } finally {
    rmSync(incoming, { recursive: true, force: true });
  }
}

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why the program could not be started (ENOENT, EACCES), or null when it ran. */
  startError: string | null;
}

function endOf(child: ChildProcess): Promise<Ended> {
  return new Promise((resolve) => {
    child.on('error', (error: NodeJS.ErrnoException) => resolve({ code: null, signal: null, startError: error.code ?? error.message }));
    child.on('close', (code, signal) => resolve({ code, signal, startError: null }));
  });
}

async function exitOf(child: ChildProcess): Promise<number | null> {
  return (await endOf(child)).code;
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop() ?? '';
}
