// Advisory gates (policy `gates[].advisory`: a gate quarantined while it is fixed), as pure
// functions: the gate runs and its result is recorded, but its failure does not decide the train's
// verdict, which the other gates take (docs/policy.md#quarantine-advisory-gates). The runner
// (./gateRunner.ts runGates) asks `countedFailure` after each gate, on the drainer and on an executor.
import type { Gate } from '../../config/index.js';
import type { GateResult } from '../../store/index.js';
import type { GateFailure } from './gateRunner.js';

/**
 * The failure that counts for the verdict: the gate's own, unless the policy marks the gate
 * advisory, whose failure (an exit, a signal, a timeout, and also a refusal or a gate that could
 * not start) is recorded and not counted. A stop still stops the run: it says nothing about the tree.
 */
export function countedFailure(gate: Pick<Gate, 'advisory'>, failure: GateFailure | null): GateFailure | null {
  if (failure === null || gate.advisory !== true || failure.kind === 'stopped') return failure;
  return null;
}

/** The results of advisory gates that did not pass: recorded and reported, never counted. */
export function advisoryFailures(results: readonly GateResult[]): GateResult[] {
  return results.filter((result) => result.advisory === true && !(result.outcome === 'exited' && result.status === 'exit 0'));
}
