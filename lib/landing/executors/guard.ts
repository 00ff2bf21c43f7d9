// Until the pipeline runs gates on ssh executors (docs/executors.md#status), a drain whose policy
// lists one refuses to start (exit 3) instead of gating on the drainer as if the key were not there:
// a policy key must never silently change nothing.
import type { Policy } from '../../config/index.js';
import { LandError } from '../../errors.js';
import { executorsOf } from './slots.js';

export function refuseUnrunExecutors(policy: Pick<Policy, 'executors' | 'batch'>): void {
  const remote = executorsOf(policy).filter((executor) => executor.kind === 'ssh');
  if (remote.length === 0) return;
  throw new LandError(
    'config',
    `executors: this version of land does not yet run gates on ssh executors (${remote.map((executor) => executor.name).join(', ')})`,
    {
      hint: 'keep only "local" entries (or remove executors) to drain here; docs/executors.md#status',
    },
  );
}
