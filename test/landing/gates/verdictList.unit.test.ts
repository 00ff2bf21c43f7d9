import { describe, expect, it } from 'vitest';
import { LandError } from '../../../lib/errors.js';
import { forgetRequest, verdictRow, verdictsInOrder, verdictsToForget } from '../../../lib/landing/gates/verdictList.js';
import type { VerdictRecord } from '../../../lib/store/index.js';

const tree = (c: string) => c.repeat(40);
const entry = (over: Partial<VerdictRecord>): VerdictRecord => ({
  tree: tree('a'),
  gatesHash: 'abcdef012345',
  verdict: 'PASS',
  reason: null,
  seconds: 1,
  at: '2026-12-01T10:00:00.000Z',
  train: 'b-1',
  log: null,
  ...over,
});

const usage = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof LandError ? `${error.code}: ${error.message}` : String(error);
  }
  return 'no error';
};

describe('land verdicts forget: what it is asked', () => {
  it('a tree (lower-cased), or --fails and/or --since; never both, never neither', () => {
    expect(forgetRequest(tree('A'), {})).toEqual({ kind: 'tree', tree: tree('a') });
    expect(forgetRequest(undefined, { fails: true })).toEqual({ kind: 'filter', fails: true, since: null });
    expect(forgetRequest(undefined, { since: 5 })).toEqual({ kind: 'filter', fails: false, since: 5 });
    expect(usage(() => forgetRequest(tree('a'), { fails: true }))).toBe('usage: verdicts forget: name a tree, or --fails and/or --since, not both');
    expect(usage(() => forgetRequest(undefined, {}))).toBe('usage: verdicts forget: name a tree, --fails or --since <span>');
  });

  it('a tree argument must be a full object id', () => {
    for (const bad of ['main', 'abc123', `${tree('a')}0`, tree('g')])
      expect(usage(() => forgetRequest(bad, {}))).toMatch(/^usage: verdicts forget: ".*" is not a tree id/);
    expect(forgetRequest('b'.repeat(64), {})).toEqual({ kind: 'tree', tree: 'b'.repeat(64) });
  });
});

describe('land verdicts forget: what it removes', () => {
  const pass = entry({});
  const oldFail = entry({ tree: tree('b'), verdict: 'FAIL', reason: 'test', at: '2026-12-01T08:00:00.000Z' });
  const newFail = entry({ tree: tree('c'), verdict: 'FAIL', reason: 'test', at: '2026-12-01T11:00:00.000Z' });
  const otherGates = entry({ tree: tree('b'), gatesHash: 'ffffffffffff', at: '2026-12-01T12:00:00.000Z' });
  const all = [pass, oldFail, newFail, otherGates];
  const nine = Date.parse('2026-12-01T09:00:00.000Z');

  it('a tree: its entries under every gates hash', () => {
    expect(verdictsToForget(all, { kind: 'tree', tree: tree('b') })).toEqual([oldFail, otherGates]);
  });

  it('--fails, --since, and both together', () => {
    expect(verdictsToForget(all, { kind: 'filter', fails: true, since: null })).toEqual([oldFail, newFail]);
    expect(verdictsToForget(all, { kind: 'filter', fails: false, since: nine })).toEqual([pass, newFail, otherGates]);
    expect(verdictsToForget(all, { kind: 'filter', fails: true, since: nine })).toEqual([newFail]);
  });

  it('lists oldest first, a voided FAIL saying why', () => {
    expect(verdictsInOrder(all).map((v) => v.at)).toEqual([oldFail.at, pass.at, newFail.at, otherGates.at]);
    const voided = { ...newFail, status: 'exit 1', voided: { at: '2026-12-01T11:05:00.000Z', why: 'target_red', train: 'b-2-1' } };
    expect(verdictRow(voided)).toEqual([tree('c'), 'abcdef012345', 'FAIL test exit 1', 'b-1', newFail.at, 'target_red (train b-2-1)']);
    expect(verdictRow(pass).at(-1)).toBe('-');
  });
});
