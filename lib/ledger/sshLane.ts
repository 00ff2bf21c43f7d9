// Talking to an ssh lane: check it answers, run the batch there, copy its measure dir back.
// ssh never prompts (BatchMode) and gives up on a lane that does not answer within 5 seconds.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { statusOf } from './exitCodes.js';
import type { Lane } from './lanePlan.js';

// ssh's own status when it could not connect (or the connection failed).
const SSH_FAILED = 255;

export function sshArgs(lane: Lane, remoteCommand: string): string[] {
  const config = lane.sshConfig === undefined ? [] : ['-F', lane.sshConfig];
  return ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', ...config, lane.ssh, remoteCommand];
}

export type ProbeResult = { kind: 'ok' } | { kind: 'unreachable'; detail: string } | { kind: 'unusable'; detail: string };

export async function probeLane(lane: Lane, probeCommand: string): Promise<ProbeResult> {
  const child = spawn('ssh', sshArgs(lane, probeCommand), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await exitOf(child);
  const detail = lastLine(stderr);
  if (code === 0) return { kind: 'ok' };
  if (code === SSH_FAILED || code === null) return { kind: 'unreachable', detail };
  return { kind: 'unusable', detail: detail || `${lane.dir} or ${lane.land} is missing on the lane` };
}

/** Runs the batch on the lane with this terminal's output; signals to the wrapper end the session. */
export async function runOnLane(lane: Lane, remoteCommand: string): Promise<{ status: number; interruptedBy: NodeJS.Signals | null }> {
  const child = spawn('ssh', sshArgs(lane, remoteCommand), { stdio: ['ignore', 'inherit', 'inherit'] });
  let interruptedBy: NodeJS.Signals | null = null;
  const forward = (signal: NodeJS.Signals) => {
    interruptedBy ??= signal;
    child.kill(signal);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, forward);
  const ended = await endOf(child);
  for (const signal of signals) process.off(signal, forward);
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
    const ssh = spawn('ssh', sshArgs(lane, pullCommand), { stdio: ['ignore', 'pipe', 'pipe'] });
    const tar = spawn('tar', ['-C', incoming, '-xf', '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
    ssh.stdout.pipe(tar.stdin);
    tar.stdin.on('error', () => undefined);
    let sshErr = '';
    let tarErr = '';
    ssh.stderr.on('data', (chunk: Buffer) => (sshErr += chunk.toString()));
    tar.stderr.on('data', (chunk: Buffer) => (tarErr += chunk.toString()));
    const [sshCode, tarCode] = await Promise.all([exitOf(ssh), exitOf(tar)]);
    // When ssh failed, tar's complaint about an empty stream is only a consequence.
    if (sshCode !== 0) return { ok: false, detail: lastLine(sshErr) || 'there is no measure dir on the lane' };
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
}

function endOf(child: ReturnType<typeof spawn>): Promise<Ended> {
  return new Promise((resolve) => {
    child.on('error', () => resolve({ code: null, signal: null }));
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
}

async function exitOf(child: ReturnType<typeof spawn>): Promise<number | null> {
  return (await endOf(child)).code;
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop() ?? '';
}
