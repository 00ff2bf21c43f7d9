// The gate slots a policy gives: the drainer's own without executors, exactly the entries' with them.
import { describe, expect, it } from 'vitest';
import { parsePolicy, type Policy } from '../../../lib/config/index.js';
import { describeGateSlots, executorsOf } from '../../../lib/landing/executors/slots.js';

function policy(extra: Record<string, unknown>): Policy {
  const parsed = parsePolicy(JSON.stringify({ target: 'main', ...extra }));
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return parsed.policy;
}

describe('executorsOf', () => {
  it('gives the drainer batch.parallel slots when the policy has no executors', () => {
    expect(executorsOf(policy({ batch: { parallel: 3 } }))).toEqual([{ kind: 'local', name: 'local', slots: 3 }]);
    expect(describeGateSlots(policy({}))).toBe('gate slots: 1 on the drainer; 1 train gates at a time');
  });

  it('gives exactly the entries’ slots, with the default dir, when it has', () => {
    const p = policy({ batch: { parallel: 3 }, executors: [{ host: 'ssh://ci@b1:2222', slots: 2 }, { host: 'local' }] });
    expect(executorsOf(p)).toEqual([
      { kind: 'ssh', name: 'ssh://ci@b1:2222', slots: 2, ssh: { user: 'ci', host: 'b1', port: 2222 }, dir: '/var/tmp/land', land: 'land' },
      { kind: 'local', name: 'local', slots: 1 },
    ]);
    expect(describeGateSlots(p)).toBe('gate slots: 2 on ssh://ci@b1:2222 (/var/tmp/land), 1 on the drainer, 3 in all; 3 trains gate at once');
  });
});
