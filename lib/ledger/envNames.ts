// The environment variables the batch wrapper reads, each with the older names it still accepts
// (NEV_ from the scripts it replaces, GENERA_ for the shared lane dir). The first one set wins.

export type Env = Record<string, string | undefined>;

export const ENV_NAMES = {
  provider: ['LAND_PROVIDER', 'NEV_PROVIDER'],
  onLane: ['LAND_ON_LANE', 'NEV_ON_LANE'],
  laneSsh: ['LAND_LANE_SSH', 'NEV_LANE_SSH'],
  laneDir: ['LAND_LANE_DIR'],
  sshConfig: ['LAND_SSH_CONFIG'],
  sshProgram: ['LAND_SSH'],
  laneSession: ['LAND_LANE_SESSION'],
  laneShared: ['LAND_LANE_SHARED', 'NEV_LANE_SHARED', 'GENERA_LANE_SHARED'],
  ledgerDir: ['LAND_LEDGER_DIR', 'NEV_LEDGER_DIR'],
  ledgerTrack: ['LAND_LEDGER_TRACK', 'NEV_LEDGER_TRACK'],
} as const;

export type EnvKey = keyof typeof ENV_NAMES;

/** The value of the first name of `key` that is set to a non-empty string. */
export function readVar(env: Env, key: EnvKey): string | undefined {
  for (const name of ENV_NAMES[key]) {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

/** Variables a lane run forwards to the wrapper on the lane (the lane choice itself stays here). */
export const FORWARDED_TO_LANE: readonly string[] = [...ENV_NAMES.provider, ...ENV_NAMES.laneShared, ...ENV_NAMES.ledgerDir];
