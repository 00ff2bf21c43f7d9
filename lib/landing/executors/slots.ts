// The pipeline's gate slots, read from the policy: where each train may gate. Without `executors`
// every slot is the drainer's own (batch.parallel of them); with it, exactly the slots its entries
// give (docs/executors.md).
import { LOCAL_EXECUTOR, DEFAULT_EXECUTOR_DIR, DEFAULT_EXECUTOR_LAND, parseSshHost, type SshHost } from '../../config/executors.js';
import type { Policy } from '../../config/index.js';

export type Executor =
  | { kind: 'local'; name: typeof LOCAL_EXECUTOR; slots: number }
  | { kind: 'ssh'; name: string; slots: number; ssh: SshHost; dir: string; land: string };

/** The executors of a (valid) policy, in policy order. */
export function executorsOf(policy: Pick<Policy, 'executors' | 'batch'>): Executor[] {
  if (policy.executors.length === 0) return [{ kind: 'local', name: LOCAL_EXECUTOR, slots: policy.batch.parallel }];
  return policy.executors.map((entry): Executor => {
    if (entry.host === LOCAL_EXECUTOR) return { kind: 'local', name: LOCAL_EXECUTOR, slots: entry.slots };
    const ssh = parseSshHost(entry.host);
    // The schema accepted the host; a null here is a bug, not a user's input.
    if (ssh === null) throw new Error(`executor host ${entry.host} passed validation but does not parse`);
    return { kind: 'ssh', name: entry.host, slots: entry.slots, ssh, dir: entry.dir ?? DEFAULT_EXECUTOR_DIR, land: entry.land ?? DEFAULT_EXECUTOR_LAND };
  });
}

/** "2 on the drainer, 2 on ssh://ci@build1 (/var/tmp/land), 4 slots in all; 2 trains gate at once" */
export function describeGateSlots(policy: Pick<Policy, 'executors' | 'batch'>): string {
  const executors = executorsOf(policy);
  const parts = executors.map((executor) =>
    executor.kind === 'local' ? `${executor.slots} on the drainer` : `${executor.slots} on ${executor.name} (${executor.dir})`,
  );
  const total = executors.reduce((sum, executor) => sum + executor.slots, 0);
  const trains = policy.batch.parallel === 1 ? '1 train gates at a time' : `${policy.batch.parallel} trains gate at once`;
  return `gate slots: ${parts.join(', ')}${executors.length > 1 ? `, ${total} in all` : ''}; ${trains}`;
}
