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

export async function runViaLane(run: LaneRun): Promise<number> {
  const { lane, note } = run;
  const probe = await probeLane(lane, remoteProbeCommand(lane));
  if (probe.kind !== 'ok') {
    const what = probe.kind === 'unreachable' ? 'does not answer' : 'cannot run the batch';
    note(`land batch: no lane: ${lane.ssh} ${what}${probe.detail ? ` (${probe.detail})` : ''}; nothing run`);
    return BATCH_EXIT.noLane;
  }
  const ran = await runOnLane(lane, remoteBatchCommand(lane, run), note);
  const pulled = await pullMeasureDir(lane, remotePullCommand(lane, run.measureDir), resolve(run.cwd, run.measureDir));
  if (!pulled.ok) note(`land batch: could not copy the measure dir back from ${lane.ssh}: ${pulled.detail}`);
  // ssh's 255 after a signal this side passed on is the signal's doing, not a lane failure.
  const status = ran.interruptedBy !== null && ran.status === SSH_FAILED ? statusOf(null, ran.interruptedBy) : ran.status;
  return finalStatus(status, ran.interruptedBy);
}
