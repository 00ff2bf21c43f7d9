// The drainer's side of one run on an ssh executor: starts the runner over ssh (the fixed line of
// sshArgv.ts), writes the request on its standard input and keeps that open while the run lasts
// (closing it, or the ssh session ending, stops the gates there), streams the runner's output into
// the train's log, and reads the verdict from how ssh ended (outcome.ts). The run is given the sum
// of the gates' timeouts plus a margin: past that, the executor stopped answering (INFRA, down).
import type { Writable } from 'node:stream';
import { startProcess } from '../../proc/runProcess.js';
import { remoteOutcome, type RemoteOutcome } from './outcome.js';
import { executorRequestLine, type ExecutorRequestInput } from './request.js';
import { runnerCommand, type SshExecutor, type SshSettings, sshArgv } from './sshArgv.js';

/** Above the gates' own timeouts: ssh's connection, the checkout, the sandbox's start. */
export const REMOTE_MARGIN_SECONDS = 120;

/** How long the drainer waits for a run: every gate's timeout, plus the margin. */
export function remoteDeadlineMs(gates: readonly { timeoutSeconds: number }[]): number {
  return (gates.reduce((sum, gate) => sum + gate.timeoutSeconds, 0) + REMOTE_MARGIN_SECONDS) * 1000;
}

export interface RemoteRun {
  settings: SshSettings;
  executor: SshExecutor;
  request: ExecutorRequestInput & { gates: { timeoutSeconds: number }[] };
  /** The train's log: the runner's output goes here as it comes. */
  log: Pick<Writable, 'write'> | { write(chunk: Buffer): unknown };
  /** Aborting it (a speculative train abandoned, the drain stopping) ends the run: `abandoned`. */
  signal?: AbortSignal;
}

export async function runOnExecutor(run: RemoteRun): Promise<RemoteOutcome> {
  let lastError = '';
  const proc = startProcess({
    argv: sshArgv(run.settings, run.executor, runnerCommand(run.executor)),
    stdin: 'pipe',
    stdout: (chunk) => run.log.write(chunk),
    stderr: (chunk) => {
      run.log.write(chunk); // ssh's and the runner's own complaints belong in the train's log too
      const lines = chunk.toString().trim().split('\n').filter(Boolean);
      if (lines.length) lastError = (lines[lines.length - 1] as string).slice(0, 400);
    },
    timeoutMs: remoteDeadlineMs(run.request.gates),
    signal: run.signal,
  });
  // Written once, left open: its end is the runner's stop.
  proc.stdin?.write(executorRequestLine(run.request));
  const { ending } = await proc.ended;
  return remoteOutcome(ending, lastError);
}
