// Where a batch runs. First match wins:
//   LAND_ON_LANE=1            this machine is the lane: run here
//   LAND_LANE_SSH=<host>      ssh to it (LAND_LANE_DIR, else the same dir as here)
//   .land/lane.local.json     ssh to the lane it names
//   policy ledger.lane        "local": run here; any other value: ssh to that host, same dir
//   nothing                   no lane: the batch does not fall back to this machine
// Every ssh lane is reached with LAND_SSH (default `ssh`) and LAND_SSH_CONFIG (`ssh -F`).
import { readVar, type Env } from './envNames.js';
import type { LaneFileRead } from './laneFile.js';

export interface Lane {
  ssh: string;
  /** The directory on the lane the batch runs in. */
  dir: string;
  node: string;
  land: string;
  /** An ssh config file (`ssh -F`), from LAND_SSH_CONFIG. */
  sshConfig: string | undefined;
  /** The ssh program: LAND_SSH (a path to an ssh-compatible program), else `ssh` from PATH. */
  sshProgram: string;
}

export type LanePlan = { kind: 'here'; why: string } | { kind: 'ssh'; lane: Lane; from: string } | { kind: 'none'; reason: string };

export interface LanePlanInput {
  env: Env;
  policyLane: string | undefined;
  laneFile: LaneFileRead;
  /** The directory the wrapper runs in here. */
  cwd: string;
  /** This node binary and this land.js, the defaults for the lane's. */
  self: { node: string; land: string };
}

export const DEFAULT_SSH = 'ssh';

// A host name that ssh cannot mistake for an option.
const SSH_NAME = /^[A-Za-z0-9_.@%:[\]][A-Za-z0-9_.@%:[\]-]*$/;

export function planLane(input: LanePlanInput): LanePlan {
  const { env, laneFile, cwd, self } = input;
  const onLane = readVar(env, 'onLane');
  if (onLane !== undefined && onLane !== '0') return { kind: 'here', why: 'on a lane' };
  const sshConfig = readVar(env, 'sshConfig');
  const sshProgram = readVar(env, 'sshProgram') ?? DEFAULT_SSH;
  const ssh = (host: string, dir: string, from: string, node = self.node, land = self.land): LanePlan =>
    SSH_NAME.test(host)
      ? { kind: 'ssh', lane: { ssh: host, dir, node, land, sshConfig, sshProgram }, from }
      : { kind: 'none', reason: `invalid lane name ${JSON.stringify(host)} (from ${from})` };

  const envHost = readVar(env, 'laneSsh');
  if (envHost !== undefined) return ssh(envHost, readVar(env, 'laneDir') ?? cwd, 'LAND_LANE_SSH');
  if (laneFile.kind === 'ok') {
    const { lane } = laneFile;
    return ssh(lane.ssh, lane.dir, laneFile.path, lane.node, lane.land);
  }
  if (laneFile.kind === 'invalid') return { kind: 'none', reason: `lane file ${laneFile.path} is invalid: ${laneFile.problem}` };
  if (input.policyLane === 'local') return { kind: 'here', why: 'the policy names this machine a lane (ledger.lane: "local")' };
  if (input.policyLane !== undefined) return ssh(input.policyLane, cwd, 'ledger.lane in the policy');
  return { kind: 'none', reason: 'no lane configured (LAND_ON_LANE, LAND_LANE_SSH, .land/lane.local.json or ledger.lane)' };
}
