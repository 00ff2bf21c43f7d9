// `land batch`: the steps before the command runs (provider, lane), then either the run on this
// machine (runHere) or the same wrapper on the lane over ssh (runViaLane). Returns the exit status.
import { LandError } from '../errors.js';
import type { Env } from './envNames.js';
import { BATCH_EXIT } from './exitCodes.js';
import { assertJobName } from './jobName.js';
import { readLaneFile } from './laneFile.js';
import { planLane } from './lanePlan.js';
import { readLedgerPolicy } from './ledgerPolicy.js';
import { checkProvider } from './provider.js';
import { runHere } from './runHere.js';
import { runViaLane } from './runViaLane.js';

export interface BatchRequest {
  cwd: string;
  job: string;
  /** As given: relative paths are taken from `cwd` here and from the lane's directory there. */
  measureDir: string;
  command: readonly string[];
  target: string | undefined;
  env: Env;
  /** This node binary and this land.js: what a lane runs unless its lane file says otherwise. */
  self: { node: string; land: string };
  note: (line: string) => void;
}

export async function runBatch(req: BatchRequest): Promise<number> {
  const job = assertJobName(req.job);
  if (req.command.length === 0) throw new LandError('usage', 'no command: land batch --job <name> --measure-dir <dir> -- <command...>');
  if (req.measureDir === '') throw new LandError('usage', '--measure-dir <dir> is required');

  const { policy, root } = await readLedgerPolicy(req.cwd, req.target);
  const provider = checkProvider(req.env, policy.providers);
  if (provider.kind === 'refused') {
    req.note(`land batch: provider ${JSON.stringify(provider.provider)} is not allowed (ledger.providers: ${policy.providers.join(', ')}); nothing run`);
    return BATCH_EXIT.providerRefused;
  }

  const plan = planLane({ env: req.env, policyLane: policy.lane, laneFile: readLaneFile(root ?? req.cwd), cwd: req.cwd, self: req.self });
  switch (plan.kind) {
    case 'here':
      return runHere({ ...req, job, policy, root: root ?? req.cwd });
    case 'ssh':
      req.note(`land batch: running ${job} on lane ${plan.lane.ssh}:${plan.lane.dir} (from ${plan.from})`);
      return runViaLane({ ...req, job, lane: plan.lane });
    case 'none':
      req.note(`land batch: no lane: ${plan.reason}; nothing run`);
      return BATCH_EXIT.noLane;
    default: {
      const never: never = plan;
      throw new Error(`unknown lane plan ${JSON.stringify(never)}`);
    }
  }
}
