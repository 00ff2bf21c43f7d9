// Optimistic clearing's decisions as plain values (lib/landing/pipeline/clearing.ts): which verdicts
// a passing train behind may clear, and the one train the two become. test/landing/pipeline/parallel.test.ts
// proves it end to end (a flake cleared, a culprit not).
import { describe, expect, it } from 'vitest';
import type { Judgement } from '../../../lib/landing/gates/judge.js';
import { clearable, clearedTrain, clearingRefusal } from '../../../lib/landing/pipeline/clearing.js';
import type { Flight } from '../../../lib/landing/pipeline/flight.js';
import { newJobRecord } from '../../../lib/queue/index.js';
import type { GateTelemetry, JobRecord } from '../../../lib/store/index.js';

const telemetry: GateTelemetry = { mode: 'full', executed: ['test'], gatesHash: 'h' };
const common = { cached: false, seconds: 3, log: null, telemetry, ledger: null, refreshed: null };
const failed = (reason: 'gate' | 'timeout' | 'no_ledger_line' | 'refresh'): Judgement => ({
  verdict: 'FAIL',
  failure: { kind: 'fail', reason, gate: 'test', status: 'exit 1' },
  ...common,
});
const on = { flaky: { rule: 'evidence' as const, threshold: 0.99, clearing: true } };
const off = { flaky: { ...on.flaky, clearing: false } };

function job(n: number): JobRecord {
  return newJobRecord({ id: `j-${n}`, branch: `b${n}`, tip: String(n).repeat(40), title: `b${n}`, submitter: 't', urgent: false });
}

/** A train in flight as clearedTrain reads it: its plan and what was built. */
function flight(id: string, kind: 'merge' | 'fast-forward', base: string, commit: string, members: JobRecord[]): Pick<Flight, 'plan' | 'started'> {
  const built = { kind, base, train: commit, tree: `${commit}-tree`, members: members.map((job) => ({ job, commit })), skipped: [], contained: [] };
  const view = { loaded: {} as Flight['plan']['view']['loaded'], baseTree: `${base}-tree`, fastPath: null };
  return { plan: { members, attempt: 1, view, ...(base === 'main' ? {} : { base }) }, started: { trainId: id, built, members, before: members } };
}

describe('clearable', () => {
  it("clears a gate's own failure (an exit or a timeout) under flaky.clearing; never a refusal, an infrastructure failure, a stop, or with clearing off", () => {
    expect(clearable(on, failed('gate'))).toBe(true);
    expect(clearable(on, failed('timeout'))).toBe(true);
    expect(clearable(off, failed('gate'))).toBe(false);
    // A missing ledger line or a failed refresh is no test result a later PASS can overrule.
    expect(clearable(on, failed('no_ledger_line'))).toBe(false);
    expect(clearable(on, failed('refresh'))).toBe(false);
    expect(clearable(on, { verdict: 'FAIL', failure: { kind: 'refused', reason: 'policy_refused', gate: 'batch', status: 'exit 2' }, ...common })).toBe(false);
    expect(clearable(on, { verdict: 'INFRA', failure: { kind: 'infra', reason: 'no_lane', gate: 'b', status: 'exit 3', stderr: '' }, ...common })).toBe(false);
    expect(clearable(on, { verdict: 'STOPPED', failure: { kind: 'stopped', gate: 'test' }, ...common })).toBe(false);
    expect(clearable(on, { verdict: 'PASS', failure: null, ...common })).toBe(false);
  });
});

describe('clearedTrain', () => {
  it("is the train behind's commit and tree on the head's base, with the head's members first, each set landing by its own train's kind", () => {
    const head = flight('t1', 'fast-forward', 'main', 'c1', [job(1)]);
    const behind = flight('t2', 'merge', 'c1', 'c2', [job(2), job(3)]);
    const { plan, started } = clearedTrain(head, behind, failed('gate'));
    expect(started.trainId).toBe('t2');
    expect(started.members.map((m) => m.id)).toEqual(['j-1', 'j-2', 'j-3']);
    expect(started.before.map((m) => m.id)).toEqual(['j-1', 'j-2', 'j-3']);
    expect(started.built).toMatchObject({ kind: 'merge', base: 'main', train: 'c2', tree: 'c2-tree' });
    expect(started.cleared).toEqual({ members: ['j-1'], kind: 'fast-forward', train: 't1', gate: 'test', status: 'exit 1', log: null });
    // Settled as a train built on the target: its base is the head's, and so is the tree it is compared with.
    expect(plan.base).toBe('main');
    expect(plan.view.baseTree).toBe('main-tree');
    // The flights themselves are not changed.
    expect(behind.started.built.base).toBe('c1');
  });
});

describe('clearingRefusal', () => {
  const policy = { ...on, gates: [{ name: 'test' }] } as unknown as Parameters<typeof clearingRefusal>[0];
  const ran = { mode: 'full' as const, executed: ['test'], gatesHash: 'h', cached: [] };
  const passed: Judgement = { verdict: 'PASS', failure: null, ...common, telemetry: ran };
  const headFailed: Judgement = { ...failed('gate'), telemetry: ran };
  const base = { head: { judgement: headFailed, commit: 'c1' }, behind: { judgement: passed, base: 'c1' } };

  it('clears a gate failure of the head when every gate passed on the train behind, built on the head as judged', () => {
    expect(clearingRefusal(policy, base)).toBeNull();
    expect(clearingRefusal({ ...policy, flaky: off.flaky }, base)).toMatch(/not a gate failure/);
    expect(clearingRefusal(policy, { ...base, behind: { ...base.behind, judgement: failed('gate') } })).toBe('the train behind did not pass');
  });

  it('refuses what the PASS behind cannot speak for: trusted paths the head changed, skipped gates, batch stages, a head moved by a refresh', () => {
    const trusted = { ...ran, trusted: { gatedTree: 'a'.repeat(40), restored: ['ci/test.sh'], byJob: { 'j-1': ['ci/test.sh'] } } };
    expect(clearingRefusal(policy, { ...base, head: { ...base.head, judgement: { ...headFailed, telemetry: trusted } } })).toBe(
      'the head changes trusted paths',
    );
    const selective = { ...ran, mode: 'selective' as const };
    expect(clearingRefusal(policy, { ...base, behind: { ...base.behind, judgement: { ...passed, telemetry: selective } } })).toMatch(/not every gate ran/);
    const ancestor = { ...ran, cached: [{ gate: 'test', from: 'b'.repeat(40) }] };
    expect(clearingRefusal(policy, { ...base, behind: { ...base.behind, judgement: { ...passed, telemetry: ancestor } } })).toMatch(/not every gate ran/);
    const batch = { ...policy, gates: [{ name: 'test', batch: { measureDir: 'm' } }] } as typeof policy;
    expect(clearingRefusal(batch, base)).toBe('a gate is a batch stage');
    const refreshed = { ...headFailed, refreshed: { commit: 'c9', tree: 't9', entries: [] } } as unknown as Judgement;
    expect(clearingRefusal(policy, { ...base, head: { ...base.head, judgement: refreshed } })).toMatch(/not built on the head as judged/);
    expect(clearingRefusal(policy, { ...base, behind: { ...base.behind, base: 'c0' } })).toMatch(/not built on the head as judged/);
    const cached = { ...headFailed, telemetry: { mode: 'cached' as const, executed: [] } };
    expect(clearingRefusal(policy, { ...base, head: { ...base.head, judgement: cached } })).toBe('no gate ran on the head');
  });
});
