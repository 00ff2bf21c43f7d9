// Talking to an ssh lane: check it answers, run the batch there, copy its measure dir back.
// ssh never prompts (BatchMode) and gives up on a lane that does not answer within 5 seconds.
// The program is the lane's sshProgram (LAND_SSH, default `ssh`): anything that takes ssh's
// options, a host and a remote command, and exits with the remote command's status or 255.
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { exitStatusOf, startProcess, type Ending, type ProcessSpec, type RunningProcess } from '../proc/index.js';
import { statusOf } from './exitCodes.js';
import type { Lane } from './lanePlan.js';
import { SESSION_SIGNALS, sessionStopMessage } from './laneSession.js';

// ssh's own status when it could not connect (or the connection failed).
export const SSH_FAILED = 255;

export function sshArgs(lane: Lane, remoteCommand: string): string[] {
  const config = lane.sshConfig === undefined ? [] : ['-F', lane.sshConfig];
  return ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', ...config, lane.ssh, remoteCommand];
}

type SshIo = Omit<ProcessSpec, 'argv' | 'group'>;

// ssh stays in this process's group: a terminal's Ctrl-C reaches it as it reaches this process.
function startSsh(lane: Lane, remoteCommand: string, io: SshIo): RunningProcess {
  return startProcess({ argv: [lane.sshProgram, ...sshArgs(lane, remoteCommand)], group: false, ...io });
}

export type ProbeResult = { kind: 'ok' } | { kind: 'unreachable'; detail: string } | { kind: 'unusable'; detail: string };

export async function probeLane(lane: Lane, probeCommand: string): Promise<ProbeResult> {
  let stderr = '';
  const { ending } = await startSsh(lane, probeCommand, { stderr: (chunk) => (stderr += chunk.toString()) }).ended;
  if (ending.kind === 'spawn_failed') return { kind: 'unreachable', detail: cannotStart(lane, ending) };
  const code = ending.kind === 'exited' ? ending.code : null;
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
  let giveUp: NodeJS.Timeout | undefined;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals, ssh: RunningProcess) => {
    if (stopping) {
      ssh.signal(signal);
      return;
    }
    stopping = true;
    note(
      `land batch: ${signal}: stopping the batch on ${lane.ssh}; it writes its ledger line there (waiting up to ${LANE_STOP_WAIT_MS / 1000} s, a second signal stops waiting)`,
    );
    ssh.stdin?.end(sessionStopMessage(signal));
    giveUp = setTimeout(() => ssh.signal('SIGTERM'), LANE_STOP_WAIT_MS);
  };
  const ssh = startSsh(lane, remoteCommand, { stdin: 'pipe', stdout: 'inherit', stderr: 'inherit', forwardSignals: SESSION_SIGNALS, onSignal });
  const { ending, interruptedBy } = await ssh.ended;
  clearTimeout(giveUp);
  const exit = exitStatusOf(ending);
  return { status: exit === null ? SSH_FAILED : statusOf(exit.code, exit.signal), interruptedBy };
}

/**
 * Copies the lane's measure dir into `localDir`, through a fresh folder first so that a lane that
 * shares this machine's disk never has its files truncated while they are being read.
 */
export async function pullMeasureDir(lane: Lane, pullCommand: string, localDir: string): Promise<{ ok: true } | { ok: false; detail: string }> {
  mkdirSync(localDir, { recursive: true });
  const incoming = mkdtempSync(join(dirname(localDir), '.land-measure-'));
  try {
    let sshErr = '';
    let tarErr = '';
    const ssh = startSsh(lane, pullCommand, { stdout: 'pipe', stderr: (chunk) => (sshErr += chunk.toString()) });
    const tar = startProcess({ argv: ['tar', '-C', incoming, '-xf', '-'], group: false, stdin: 'pipe', stderr: (chunk) => (tarErr += chunk.toString()) });
    if (ssh.stdout && tar.stdin) ssh.stdout.pipe(tar.stdin);
    const tarEnded = tar.ended;
    const sshEnded = (await ssh.ended).ending;
    // A program that never started never ends tar's input.
    if (sshEnded.kind === 'spawn_failed') tar.stdin?.end();
    const tarEnding = (await tarEnded).ending;
    if (sshEnded.kind === 'spawn_failed') return { ok: false, detail: cannotStart(lane, sshEnded) };
    // When ssh failed, tar's complaint about an empty stream is only a consequence.
    if (!exitedZero(sshEnded)) return { ok: false, detail: lastLine(sshErr) || 'there is no measure dir on the lane' };
    if (!exitedZero(tarEnding)) return { ok: false, detail: lastLine(tarErr) || `tar exited ${tarEnding.kind === 'exited' ? tarEnding.code : null}` };
    cpSync(incoming, localDir, { recursive: true, force: true });
    return { ok: true };
  } finally {
    rmSync(incoming, { recursive: true, force: true });
  }
}

function exitedZero(ending: Ending): boolean {
  return ending.kind === 'exited' && ending.code === 0;
}

/** Why the program could not be started (ENOENT, EACCES). */
function cannotStart(lane: Lane, ending: Extract<Ending, { kind: 'spawn_failed' }>): string {
  return `cannot start ${lane.sshProgram}: ${ending.errno ?? ending.message}`;
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop() ?? '';
}
