// What `land config` prints of the policy in force: every key, but the batch wrapper's `ledger`
// only when this repository uses `land batch` (a gate runs through it, or the policy sets a ledger
// key of its own). Elsewhere its defaults are a block about a tool the repository never runs;
// `land config --all` and `--json` show every key (docs/commands.md#land-config-and-land-config-schema).
import { canonicalJson, type Policy, policySchema } from '../config/index.js';

/** The ledger a policy without a `ledger` key gets. */
const DEFAULT_LEDGER = canonicalJson(policySchema.shape.ledger.parse(undefined));

/** True when a gate runs through `land batch` or the policy's `ledger` is not the default one. */
export function usesBatchWrapper(policy: Policy): boolean {
  return policy.gates.some((gate) => gate.batch !== undefined) || canonicalJson(policy.ledger) !== DEFAULT_LEDGER;
}

/** The policy as `land config` prints it: without `ledger` when the batch wrapper is unused, unless `all`. */
export function policyShown(policy: Policy, all: boolean): { shown: Partial<Policy>; ledgerHidden: boolean } {
  if (all || usesBatchWrapper(policy)) return { shown: policy, ledgerHidden: false };
  const { ledger: _defaults, ...shown } = policy;
  return { shown, ledgerHidden: true };
}
