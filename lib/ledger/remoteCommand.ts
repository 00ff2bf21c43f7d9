// The shell command an ssh lane runs: the same `land batch`, marked as on a lane and as started
// over a session whose stdin this side holds (LAND_LANE_SESSION=1, see laneSession.ts), in the
// lane's directory, with the ledger variables of this side. Every word goes through shellQuote.
import type { Env } from './envNames.js';
import { FORWARDED_TO_LANE } from './envNames.js';
import type { Lane } from './lanePlan.js';
import { shellAssign, shellQuote } from './shellQuote.js';

export interface RemoteBatch {
  job: string;
  measureDir: string;
  command: readonly string[];
  target: string | undefined;
  env: Env;
}

export function remoteBatchCommand(lane: Lane, batch: RemoteBatch): string {
  const assignments = ['LAND_ON_LANE=1', 'LAND_LANE_SESSION=1'];
  for (const name of FORWARDED_TO_LANE) {
    const value = batch.env[name];
    if (value !== undefined) assignments.push(shellAssign(name, value));
  }
  const land = [lane.node, lane.land, ...(batch.target === undefined ? [] : ['--target', batch.target])];
  const words = [...land, 'batch', '--job', batch.job, '--measure-dir', batch.measureDir, '--', ...batch.command];
  return `cd ${shellQuote(lane.dir)} && ${assignments.join(' ')} ${words.map(shellQuote).join(' ')}`;
}

/** Succeeds on a lane that can run the batch: its directory and land.js are there. */
export function remoteProbeCommand(lane: Lane): string {
  return `cd ${shellQuote(lane.dir)} && test -f ${shellQuote(lane.land)}`;
}

/** Writes the lane's measure dir as a tar stream to stdout; fails silently when there is none. */
export function remotePullCommand(lane: Lane, measureDir: string): string {
  return `cd ${shellQuote(lane.dir)} && test -d ${shellQuote(measureDir)} && tar -C ${shellQuote(measureDir)} -cf - .`;
}
