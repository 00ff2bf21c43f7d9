// What `land repro` trusts in a metrics row (lib/story/reproTrust.ts): which row it rebuilds, and
// which sandbox the commands it runs get.
import { describe, expect, it } from 'vitest';
import { policySchema } from '../../lib/config/schema.js';
import { newJobRecord } from '../../lib/queue/index.js';
import type { RebuildableRow } from '../../lib/story/repro.js';
import { knownTipsOf, reproSandbox, rowRefusal } from '../../lib/story/reproTrust.js';
import type { JournalEntry } from '../../lib/store/index.js';

const BASE = 'b'.repeat(40);
const TIP = 'a'.repeat(40);
const MOVED = 'c'.repeat(40);
const OTHER = 'd'.repeat(40);

function row(members: string[], tips: string[]): RebuildableRow {
  return { train: 'b-1-1', batch: 'b-1', members, tips, base: BASE, verdict: 'FAIL' };
}

function tipUpdated(from: string, to: string): JournalEntry {
  return { at: '2026-12-01T00:00:00Z', kind: 'update', job: 'j-1', from: 'queued', to: 'queued', event: 'tip_updated', detail: { from, to } };
}

describe('land repro: which row it rebuilds', () => {
  const known = new Map([
    ['j-1', new Set([TIP, MOVED])],
    ['j-2', new Set([OTHER])],
  ]);

  it('rebuilds a row on the target history whose members are at tips the queue recorded', () => {
    expect(rowRefusal(row(['j-1', 'j-2'], [TIP, OTHER]), { baseInTarget: true, knownTips: known })).toBeNull();
    expect(rowRefusal(row(['j-1'], [MOVED]), { baseInTarget: true, knownTips: known })).toBeNull();
  });

  it('refuses a base outside the target history, a tip nobody submitted, a member the queue does not know', () => {
    expect(rowRefusal(row(['j-1'], [TIP]), { baseInTarget: false, knownTips: known })).toMatch(/base bbbbbbbbbbbb is not in the target's history/);
    expect(rowRefusal(row(['j-1', 'j-2'], [TIP, TIP]), { baseInTarget: true, knownTips: known })).toMatch(
      /member j-2 is at aaaaaaaaaaaa, a tip the queue never recorded/,
    );
    expect(rowRefusal(row(['j-1', 'j-9'], [TIP, TIP]), { baseInTarget: true, knownTips: known })).toMatch(/member j-9 is not a job of this queue/);
  });

  it('refuses a train or batch id land would not make (the train id names the temp folder)', () => {
    const escaping = { ...row(['j-1'], [TIP]), train: '../../home/dev/x' };
    expect(rowRefusal(escaping, { baseInTarget: true, knownTips: known })).toMatch(/its train id "..\/..\/home\/dev\/x" is not one land makes/);
    expect(rowRefusal({ ...row(['j-1'], [TIP]), batch: 'B 1' }, { baseInTarget: true, knownTips: known })).toMatch(/its batch id/);
  });

  it("a job's recorded tips: its record's and every tip_updated line's", () => {
    const record = newJobRecord({ id: 'j-1', branch: 'feature', tip: MOVED, title: 'feature', submitter: 'dev', urgent: false });
    expect([...knownTipsOf(record, [tipUpdated(TIP, MOVED)])].sort()).toEqual([TIP, MOVED]);
    expect([...knownTipsOf(record, [])]).toEqual([MOVED]);
  });
});

describe('land repro: which sandbox the rebuild runs in', () => {
  const remote = { defaultMode: 'required' as const };
  const local = { defaultMode: 'auto' as const };
  const policy = (sandbox: Record<string, unknown>) => policySchema.parse({ target: 'main', gates: [{ name: 'test', run: 'true' }], sandbox });

  it("never lowers the current target's mode: an old base asking for off gets the target's required", () => {
    const decided = reproSandbox(policy({ mode: 'off', readWrite: ['/srv/cache'] }), policy({ network: true }), remote);
    expect(decided).toEqual({ sandbox: { ...policy({ network: true }).sandbox, mode: 'required' }, raised: true });
    expect(decided.sandbox.readWrite).toEqual([]); // the paths are the target's, never the base's
  });

  it("keeps a stricter base mode, and the queue's default when neither names one", () => {
    expect(reproSandbox(policy({ mode: 'required' }), policy({ mode: 'auto' }), local)).toMatchObject({ sandbox: { mode: 'required' }, raised: false });
    expect(reproSandbox(policy({}), policy({}), local)).toMatchObject({ sandbox: { mode: 'auto' }, raised: false });
    expect(reproSandbox(policy({ mode: 'off' }), policy({ mode: 'off' }), remote)).toMatchObject({ sandbox: { mode: 'off' }, raised: false });
  });
});
