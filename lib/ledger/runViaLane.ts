// The batch on an ssh lane: check the lane answers (else exit 3, nothing run), run the same
// wrapper there, then copy the lane's measure dir back here whatever the batch's status.
// Interrupted by a signal, it has the lane stop the batch (which writes its ledger line there),
// and reports the lane's status, or 128 + the signal's number, as a batch run here does.
import { resolve } from 'node:path';
import type { Env } from './envNames.js';
import { BATCH_EXIT, finalStatus, statusOf } from './exitCodes.js';
import type { Lane } from './lanePlan.js';
import { remoteBatchCommand, remoteProbeCommand, remotePullCommand } from './remoteCommand.js';
import { SSH_FAILED, probeLane, pullMeasureDir, runOnLane } from './sshLane.js';

export interface LaneRun {
  cwd: string;
  job: string;
  measureDir: string;
  command: readonly string[];
  target: string | undefined;
  env: Env;
  lane: Lane;
  note: (line: string) => void;
}

const WRAPPER_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Remembers the first signal this wrapper gets, for its whole life. A signal sent to the wrapper
 * and its ssh together (a gate's timeout, a terminal's Ctrl-C) may be handled after ssh's end is:
 * without a listener left, its default action would kill the wrapper before it reports. The
 * listeners stay until the process exits, which follows the batch at once.
 */
function rememberSignals(): () => NodeJS.Signals | null {
  let first: NodeJS.Signals | null = null;
  for (const signal of WRAPPER_SIGNALS) process.on(signal, () => (first ??= signal));
  return () => first;
}

export async function runViaLane(run: LaneRun): Promise<number> {
  const { lane, note } = run;
  const signaled = rememberSignals();
  const probe = await probeLane(lane, remoteProbeCommand(lane));
  const early = signaled();
  if (early !== null) {
    note(`land batch: ${early} before the batch started on ${lane.ssh}; nothing run`);
    return statusOf(null, early);
  }
  if (probe.kind !== 'ok') {
    const what = probe.kind === 'unreachable' ? 'does not answer' : 'cannot run the batch';
    note(`land batch: no lane: ${lane.ssh} ${what}${probe.detail ? ` (${probe.detail})` : ''}; nothing run`);
    return BATCH_EXIT.noLane;
  }
  const ran = await runOnLane(lane, remoteBatchCommand(lane, run), note);
  const pulled = await pullMeasureDir(lane, remotePullCommand(lane, run.measureDir), resolve(run.cwd, run.measureDir));
  if (!pulled.ok) note(`land batch: could not copy the measure dir back from ${lane.ssh}: ${pulled.detail}`);
  // ssh's 255 after a signal this side got is the signal's doing, not a lane failure. Read after
  // the copy back: by then a signal that raced ssh's end has been handled.
  const interruptedBy = ran.interruptedBy ?? signaled();
  const status = interruptedBy !== null && ran.status === SSH_FAILED ? statusOf(null, interruptedBy) : ran.status;
  return finalStatus(status, interruptedBy);
}
