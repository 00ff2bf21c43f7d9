// The batch on an ssh lane: check the lane answers (else exit 3, nothing run), run the same
// wrapper there, then copy the lane's measure dir back here whatever the batch's status.
import { resolve } from 'node:path';
import type { Env } from './envNames.js';
import { BATCH_EXIT, finalStatus } from './exitCodes.js';
import type { Lane } from './lanePlan.js';
import { remoteBatchCommand, remoteProbeCommand, remotePullCommand } from './remoteCommand.js';
import { probeLane, pullMeasureDir, runOnLane } from './sshLane.js';

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
  const ran = await runOnLane(lane, remoteBatchCommand(lane, run));
  const pulled = await pullMeasureDir(lane, remotePullCommand(lane, run.measureDir), resolve(run.cwd, run.measureDir));
  if (!pulled.ok) note(`land batch: could not copy the measure dir back from ${lane.ssh}: ${pulled.detail}`);
  return finalStatus(ran.status, ran.interruptedBy);
}
