// `land config` leaves out the batch wrapper's ledger defaults where `land batch` is not used: a
// gate through `land batch`, or any ledger key of the policy's own, shows it; --all always does.
import { assert, describe, expect, it } from 'vitest';
import { type Policy, parsePolicy } from '../../lib/config/index.js';
import { policyShown, usesBatchWrapper } from '../../lib/cli/configView.js';

function policy(input: Record<string, unknown>): Policy {
  const parsed = parsePolicy(JSON.stringify({ target: 'main', gates: [{ name: 'test', run: 'true' }], ...input }));
  assert(parsed.ok, 'a valid policy');
  return parsed.policy;
}

describe('usesBatchWrapper', () => {
  it('is false for a policy without ledger settings or batch gates, even with the default ledger written out', () => {
    expect(usesBatchWrapper(policy({}))).toBe(false);
    expect(usesBatchWrapper(policy({ ledger: {} }))).toBe(false);
    expect(usesBatchWrapper(policy({ ledger: { providers: ['claude-code'] } }))).toBe(false);
  });

  it('is true for a gate run through land batch, and for a ledger key of its own', () => {
    expect(usesBatchWrapper(policy({ gates: [{ name: 'eval', run: 'true', batch: { job: 'nightly', measureDir: 'out' } }] }))).toBe(true);
    expect(usesBatchWrapper(policy({ ledger: { lane: 'local' } }))).toBe(true);
    expect(usesBatchWrapper(policy({ ledger: { dir: 'ledger' } }))).toBe(true);
    expect(usesBatchWrapper(policy({ ledger: { providers: ['claude-code', 'other'] } }))).toBe(true);
  });
});

describe('policyShown', () => {
  it('drops only ledger when the wrapper is unused, and keeps it with all or when used', () => {
    const plain = policy({});
    const hidden = policyShown(plain, false);
    expect(hidden.ledgerHidden).toBe(true);
    expect(Object.keys(hidden.shown)).toEqual(Object.keys(plain).filter((key) => key !== 'ledger'));
    expect(policyShown(plain, true)).toEqual({ shown: plain, ledgerHidden: false });
    const used = policy({ ledger: { lane: 'local' } });
    expect(policyShown(used, false)).toEqual({ shown: used, ledgerHidden: false });
  });
});
