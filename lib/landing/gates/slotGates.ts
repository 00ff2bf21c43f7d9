// Where a train's gates run: on the drainer (runGates, as always), or, when the policy in force
// lists ssh executors, on the slot the drain's GateSlots gives it (executors/trainGates.ts). The
// gates judge the gated tree: with trusted paths restored it is shipped as a commit of its own, so
// the executor checks out exactly the tree the verdict and the proof are about.
import type { Gate } from '../../config/index.js';
import { commitTree } from '../../git/index.js';
import { runTrainGates } from '../executors/trainGates.js';
import { EXECUTOR_REQUEST_VERSION } from '../executors/request.js';
import { executorsOf } from '../executors/slots.js';
import { secretsOf, type TrainEnv } from './gateEnv.js';
import { runGates, type GateProgress, type GateRun } from './gateRunner.js';
import type { Judging } from './judging.js';
import { sandboxMode } from './sandbox.js';

export async function runGatesOnSlot(j: Judging, gates: readonly Gate[], dir: string, train: TrainEnv): Promise<GateRun> {
  const { ctx } = j;
  const { policy } = j.loaded;
  // The same progress events wherever the gates run (an executor's are read from its streamed lines).
  const onGate = (e: GateProgress) =>
    e.phase === 'started'
      ? ctx.emit({ type: 'gate_started', train: j.ids.trainId, gate: e.gate, log: j.logPath })
      : ctx.emit({
          type: 'gate_finished',
          train: j.ids.trainId,
          gate: e.gate,
          status: e.status ?? '',
          seconds: e.seconds ?? 0,
          ...(e.advisory ? { advisory: true } : {}),
        });
  const local = () => runGates({ gates, worktree: dir, ownsWorktree: true, log: j.log, signal: ctx.abort, isolation: j.isolation, train, onGate });
  const executors = executorsOf(policy);
  if (ctx.slots === undefined || !executors.some((executor) => executor.kind === 'ssh')) return local();
  const commit = j.gated.restored.length
    ? await commitTree(ctx.cwd, j.gated.tree, [train.LAND_TIP], 'land: the gated tree (trusted paths as on the target)')
    : train.LAND_TIP;
  j.log.setSecrets(gates.flatMap((gate) => secretsOf(gate)));
  return runTrainGates(ctx.slots, {
    executors,
    gates,
    commit,
    request: {
      v: EXECUTOR_REQUEST_VERSION,
      sandbox: { ...policy.sandbox, mode: sandboxMode(policy.sandbox, ctx.sandbox) },
      train,
      logMaxBytes: policy.logs.maxBytes,
    },
    log: j.log,
    signal: ctx.abort,
    cwd: ctx.cwd,
    local,
    onGate,
  });
}
