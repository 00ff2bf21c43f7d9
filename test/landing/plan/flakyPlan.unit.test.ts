// Flaky gates as plain values: when a train's gates run again (plan/flakyPlan.ts), and what the
// settlement keeps of the runs (plan/settlement.ts): the flake, the run count, the metrics row.
import { describe, expect, it } from 'vitest';
import type { Judgement } from '../../../lib/landing/gates/judge.js';
import {
  decideRerun,
  failsOf,
  flakeOf,
  MAX_TRAIN_RUNS,
  priorRuns,
  retriesRule,
  rerunEndText,
  runsAfter,
  siblingOf,
  trainKey,
  type RunHistory,
} from '../../../lib/landing/plan/flakyPlan.js';
import { settleTrain, type TrainFacts } from '../../../lib/landing/plan/settlement.js';
import { newJobRecord, type JobChange } from '../../../lib/queue/index.js';
import type { GateRun, GateTelemetry, JobRecord, TrainRuns } from '../../../lib/store/index.js';

const TIP = 'a'.repeat(40);
const BASE = 'b'.repeat(40);
const TREE = 'd'.repeat(40);
const KEY = 'k';

function run(n: number, verdict: GateRun['verdict'], extra: Partial<GateRun> = {}): GateRun {
  const failed = verdict === 'FAIL';
  return {
    run: n,
    train: 't1',
    cached: false,
    verdict,
    reason: failed ? 'gate' : verdict === 'INFRA' ? 'no_lane' : null,
    gate: failed ? 'test' : null,
    status: failed ? 'exit 1' : null,
    seconds: 2,
    log: '/logs/t1.log',
    results: [{ name: 'test', outcome: 'exited', status: failed ? 'exit 1' : 'exit 0', seconds: 2 }],
    ...extra,
  };
}

const none: TrainRuns = { key: KEY, runs: 0, reruns: 0 };
const history = (runs: GateRun[], extra: Partial<RunHistory> = {}): RunHistory => ({ members: 1, prior: none, runs, ...extra });

describe('decideRerun', () => {
  it('runs a lone FAIL again while the allowance lasts, then settles', () => {
    expect(decideRerun(history([run(1, 'FAIL')]), retriesRule(1))).toEqual({ kind: 'rerun', run: 2 });
    expect(decideRerun(history([run(1, 'FAIL'), run(2, 'FAIL')]), retriesRule(1))).toEqual({ kind: 'settle', why: 'allowance_spent' });
    expect(decideRerun(history([run(1, 'FAIL'), run(2, 'FAIL')]), retriesRule(2))).toEqual({ kind: 'rerun', run: 3 });
  });

  it('retries.flaky 0: a lone FAIL settles at once, as before', () => {
    expect(decideRerun(history([run(1, 'FAIL')]), retriesRule(0))).toEqual({ kind: 'settle', why: 'allowance_spent' });
  });

  it('a PASS, an INFRA or a stopped run settles; nothing is run again', () => {
    expect(decideRerun(history([run(1, 'PASS')]), retriesRule(4))).toEqual({ kind: 'settle', why: 'not_failed' });
    expect(decideRerun(history([run(1, 'FAIL'), run(2, 'PASS')]), retriesRule(4))).toEqual({ kind: 'settle', why: 'not_failed' });
    expect(decideRerun(history([run(1, 'INFRA')]), retriesRule(4))).toEqual({ kind: 'settle', why: 'not_failed' });
    expect(decideRerun(history([run(1, 'STOPPED')]), retriesRule(4))).toEqual({ kind: 'settle', why: 'not_failed' });
    expect(decideRerun(history([]), retriesRule(4))).toEqual({ kind: 'settle', why: 'no_run' });
  });

  it('a batch FAIL bisects: no re-run', () => {
    expect(decideRerun(history([run(1, 'FAIL')], { members: 2 }), retriesRule(4))).toEqual({ kind: 'settle', why: 'batch' });
  });

  it('re-runs gate exits and timeouts only: not a policy refusal, a missing ledger line or a refresh entry', () => {
    expect(decideRerun(history([run(1, 'FAIL', { reason: 'timeout' })]), retriesRule(1))).toEqual({ kind: 'rerun', run: 2 });
    for (const reason of ['policy_refused', 'no_ledger_line', 'refresh']) {
      expect(decideRerun(history([run(1, 'FAIL', { reason })]), retriesRule(4))).toEqual({ kind: 'settle', why: 'reason' });
    }
  });

  it('a cached FAIL of a lone job gets the allowance: the gates run again despite the cache', () => {
    expect(decideRerun(history([run(1, 'FAIL', { cached: true, train: 'old' })]), retriesRule(1))).toEqual({ kind: 'rerun', run: 2 });
  });

  it('a cached FAIL this same train already confirmed with its re-runs is final', () => {
    const prior = { key: KEY, runs: 2, reruns: 1 };
    expect(decideRerun(history([run(1, 'FAIL', { cached: true })], { prior }), retriesRule(1))).toEqual({ kind: 'settle', why: 'allowance_spent' });
    // A larger allowance since: what is left of it.
    expect(decideRerun(history([run(1, 'FAIL', { cached: true })], { prior }), retriesRule(2))).toEqual({ kind: 'rerun', run: 2 });
  });

  it('at most five runs of one train in all: earlier infra requeues count', () => {
    const prior = { key: KEY, runs: 3, reruns: 0 };
    expect(decideRerun(history([run(1, 'FAIL')], { prior }), retriesRule(4))).toEqual({ kind: 'rerun', run: 2 });
    expect(decideRerun(history([run(1, 'FAIL'), run(2, 'FAIL')], { prior }), retriesRule(4))).toEqual({ kind: 'settle', why: 'train_cap' });
    // The largest allowance alone stays within the cap.
    const four = [run(1, 'FAIL'), run(2, 'FAIL'), run(3, 'FAIL'), run(4, 'FAIL')];
    expect(decideRerun(history(four), retriesRule(4))).toEqual({ kind: 'rerun', run: 5 });
    expect(decideRerun(history([...four, run(5, 'FAIL')]), retriesRule(4))).toEqual({ kind: 'settle', why: 'allowance_spent' });
    expect(MAX_TRAIN_RUNS).toBe(5);
  });
});

describe('siblingOf', () => {
  const job = (id: string, attempt: number, extra: Partial<JobRecord> = {}) => ({
    ...newJobRecord({ id, branch: id, tip: TIP, title: id, submitter: 't', urgent: false }),
    state: 'queued' as const,
    requeued: true,
    reason: 'bisected' as const,
    batch: { id: 'b-1', members: [], attempt, index: 0 },
    ...extra,
  });

  it('counts the waiting other half of the failed train a first half was split from: same batch, same attempt, not a rider', () => {
    const riders = [job('j-1', 3, { state: 'in_progress' })];
    const jobs = [...riders, job('j-2', 3), job('j-3', 3), job('j-4', 2), job('j-5', 3, { batch: { id: 'b-2', members: [], attempt: 3, index: 0 } })];
    // j-4 is the half of an older split (attempt 2); j-5 another batch's.
    expect(siblingOf(jobs, 'b-1', 3, riders)).toBe(2);
    // A second half riding (its first half landed): nothing of its own attempt waits.
    expect(siblingOf(jobs, 'b-1', 2, [job('j-4', 2)])).toBe(0);
    // A half that rejoined its batch after the culprit was found is no longer waiting as a half.
    expect(siblingOf([job('j-2', 3, { reason: 'culprit_found' })], 'b-1', 3, riders)).toBe(0);
  });

  it('gives decideRerun the evidence: a lone job of a new gate is failed after its second FAIL instead of its third', () => {
    const evidence = { kind: 'evidence' as const, threshold: 0.99, jobRate: () => 0.1, gate: () => ({ passed: 0, flakes: 0 }) };
    const twice = [run(1, 'FAIL'), run(2, 'FAIL')];
    expect(decideRerun(history(twice), evidence)).toMatchObject({ kind: 'rerun', run: 3 });
    expect(decideRerun(history(twice, { sibling: 1 }), evidence)).toMatchObject({ kind: 'settle', why: 'evidence' });
    expect(decideRerun(history([run(1, 'FAIL')], { sibling: 1 }), evidence)).toMatchObject({ kind: 'rerun', run: 2, sibling: 1 });
  });
});

describe('run counts and the flake', () => {
  it('a train is known by its base and its members at their tips; other trains count nothing', () => {
    const key = trainKey(BASE, [{ id: 'j-1', tip: TIP }]);
    expect(key).not.toBe(trainKey(BASE, [{ id: 'j-1', tip: 'e'.repeat(40) }]));
    expect(priorRuns(key, [{ trainRuns: { key, runs: 2, reruns: 1, fails: 2 } }])).toEqual({ key, runs: 2, reruns: 1, fails: 2 });
    expect(priorRuns(key, [{ trainRuns: { key: 'other', runs: 2, reruns: 1 } }, {}])).toEqual({ key, runs: 0, reruns: 0, fails: 0 });
  });

  it('counts runs that ran (not a cached verdict), re-runs and fresh FAILs', () => {
    expect(runsAfter(none, [run(1, 'FAIL', { cached: true }), run(2, 'PASS')])).toEqual({ key: KEY, runs: 1, reruns: 1, fails: 0 });
    expect(runsAfter({ key: KEY, runs: 2, reruns: 0 }, [run(1, 'INFRA')])).toEqual({ key: KEY, runs: 3, reruns: 0, fails: 0 });
    expect(runsAfter({ key: KEY, runs: 2, reruns: 1, fails: 2 }, [run(1, 'FAIL')])).toEqual({ key: KEY, runs: 3, reruns: 1, fails: 3 });
  });

  it('under the evidence rule, the cap settles a FAIL below the threshold, with the posterior it reached', () => {
    const badlyFlaky = { kind: 'evidence' as const, threshold: 0.99, jobRate: () => 0.1, gate: () => ({ passed: 50, flakes: 50 }) };
    const fails = [1, 2, 3, 4, 5].map((n) => run(n, 'FAIL'));
    const decision = decideRerun(history(fails), badlyFlaky);
    expect(decision).toMatchObject({ kind: 'settle', why: 'train_cap' });
    expect(decision.kind === 'settle' && decision.posterior).toBeGreaterThan(0.5);
    expect(decision.kind === 'settle' && decision.posterior).toBeLessThan(0.99);
    expect(decideRerun(history(fails.slice(0, 4)), badlyFlaky)).toMatchObject({ kind: 'rerun', run: 5 });
  });

  it('says why the runs of a FAIL stopped: the threshold reached, the most runs of one train, or the allowance', () => {
    expect(rerunEndText({ why: 'evidence', posterior: 0.9976, threshold: 0.99 })).toBe('a culprit with probability 0.998, at least flaky.threshold 0.99');
    expect(rerunEndText({ why: 'train_cap', posterior: 0.92, threshold: 0.99 })).toBe('5 runs, the most one train is gated; a culprit with probability 0.920');
    expect(rerunEndText({ why: 'allowance_spent' })).toBe('retries.flaky spent');
  });

  it("the FAILs the evidence counts: earlier drains' and this one's; a cached FAIL is the earlier one when the train failed before", () => {
    const cachedFail = run(1, 'FAIL', { cached: true });
    expect(failsOf({ prior: none, runs: [cachedFail, run(2, 'FAIL')] })).toBe(2);
    // Sent back after two FAILs (a red target): the next drain meets the cached FAIL, then runs again.
    const before = { key: KEY, runs: 2, reruns: 1, fails: 2 };
    expect(failsOf({ prior: before, runs: [cachedFail] })).toBe(2);
    expect(failsOf({ prior: before, runs: [cachedFail, run(2, 'FAIL')] })).toBe(3);
  });

  it('a FAIL then a PASS is a flake of the failing gate; a PASS alone or a FAIL alone is not', () => {
    const failed = run(1, 'FAIL');
    const passed = run(2, 'PASS');
    expect(flakeOf([failed, passed], TREE)).toEqual({ gate: 'test', tree: TREE, train: 't1', failed, passed });
    expect(flakeOf([passed], TREE)).toBeNull();
    expect(flakeOf([failed, run(2, 'FAIL')], TREE)).toBeNull();
  });
});

// ---- the settlement ---------------------------------------------------------------------------

function job(n: number, extra: Partial<JobRecord> = {}): JobRecord {
  const base = newJobRecord({ id: `j-20261130-${String(n).padStart(4, '0')}`, branch: `b${n}`, tip: TIP, title: `b${n}`, submitter: 't', urgent: false });
  return { ...base, state: 'in_progress', batch: { id: 'b-1', members: [], attempt: 1, index: 0 }, ...extra };
}

function facts(members: JobRecord[], runs: GateRun[], prior: TrainRuns = none): TrainFacts {
  return {
    target: 'main',
    batchId: 'b-1',
    trainId: 't1',
    attempt: 1,
    members,
    train: { kind: 'merge', base: BASE, commit: 'c'.repeat(40), tree: TREE },
    policy: { retries: { infra: 10, casLost: 3 }, batch: { max: 8 } },
    window: 4,
    waiting: [],
    now: '2026-11-30T12:00:00.000Z',
    runs: { prior, history: runs },
  };
}

const telemetry: GateTelemetry = { mode: 'full', executed: ['test'], gatesHash: 'h' };
const common = { cached: false, seconds: 2, log: '/logs/t1.log', telemetry, ledger: null, refreshed: null };
const pass: Judgement = { verdict: 'PASS', failure: null, ...common };
const fail: Judgement = { verdict: 'FAIL', failure: { kind: 'fail', reason: 'gate', gate: 'test', status: 'exit 1' }, ...common };
const infra: Judgement = { verdict: 'INFRA', failure: { kind: 'infra', reason: 'no_lane', gate: 'test', status: 'exit 3' }, ...common };

function patched(change: JobChange, record: JobRecord): JobRecord {
  return { ...record, ...(typeof change.patch === 'function' ? change.patch(record) : (change.patch ?? {})) };
}

describe('settling a train that ran more than once', () => {
  it('a FAIL then a PASS lands the job, flaky: the flake on the record and in the journal, every run in the metrics row', () => {
    const member = job(1);
    const runs = [run(1, 'FAIL'), run(2, 'PASS')];
    const s = settleTrain(facts([member], runs), pass, { step: 'landing', outcome: { kind: 'landed', warning: null } });
    expect(s.changes.map((c) => c.event)).toEqual(['gate_flaky', 'landed']);
    const flakyChange = s.changes[0] as JobChange;
    expect(flakyChange.detail).toMatchObject({ gate: 'test', failedRun: 1, passedRun: 2, status: 'exit 1' });
    expect(patched(flakyChange, member).flaky).toMatchObject({ gate: 'test', tree: TREE, failed: { run: 1 }, passed: { run: 2 } });
    expect(s.metric).toMatchObject({ flaky: true, landed: true, verdict: 'PASS', gateSeconds: 4, runs });
    // The landing records the train's runs as a failure does: both runs, one a re-run (not run 1's count).
    const stale = { ...member, trainRuns: { key: KEY, runs: 1, reruns: 0 } };
    expect(patched(s.changes[1] as JobChange, stale).trainRuns).toEqual({ key: KEY, runs: 2, reruns: 1, fails: 1 });
  });

  it('one run: flaky false and no runs list (its results are in gate.results)', () => {
    const s = settleTrain(facts([job(1)], [run(1, 'PASS')]), pass, { step: 'landing', outcome: { kind: 'landed', warning: null } });
    expect(s.metric?.flaky).toBe(false);
    expect(s.metric?.runs).toBeUndefined();
    expect(s.changes.map((c) => c.event)).toEqual(['landed']);
  });

  it('a FAIL that stays FAIL fails the job, says how many runs failed, and keeps the run count', () => {
    const member = job(1);
    const s = settleTrain(facts([member], [run(1, 'FAIL'), run(2, 'FAIL')]), fail, {
      step: 'target_checked',
      health: { kind: 'green', cached: true, log: null },
    });
    const failed = s.changes.find((c) => c.event === 'failed') as JobChange;
    const record = patched(failed, member);
    expect(record.error?.message).toContain('failed all 2 runs of the same tree');
    expect(record.trainRuns).toEqual({ key: KEY, runs: 2, reruns: 1, fails: 2 });
    expect(s.metric).toMatchObject({ flaky: false, verdict: 'FAIL', runs: [{ run: 1 }, { run: 2 }] });
  });

  it('a flake the target check met (a FAIL, then a PASS of the target tree) is told in the journal of the job it fails', () => {
    const member = job(1);
    const target = [run(1, 'FAIL', { train: 't1-target' }), run(2, 'PASS', { train: 't1-target' })];
    const flake = { gate: 'test', tree: BASE, train: 't1-target', failed: target[0] as GateRun, passed: target[1] as GateRun };
    const s = settleTrain(facts([member], [run(1, 'FAIL')]), fail, { step: 'target_checked', health: { kind: 'green', cached: false, log: null, flake } });
    expect(s.changes.map((c) => c.event)).toEqual(['target_flaky', 'failed']);
    expect(s.changes[0]).toMatchObject({
      id: member.id,
      detail: { gate: 'test', tree: BASE, train: 't1-target', failedRun: 1, status: 'exit 1', passedRun: 2 },
    });
    expect(s.changes[0]?.to).toBeUndefined();
    // A green target with no flake adds nothing.
    const plain = settleTrain(facts([member], [run(1, 'FAIL')]), fail, { step: 'target_checked', health: { kind: 'green', cached: false, log: null } });
    expect(plain.changes.map((c) => c.event)).toEqual(['failed']);
  });

  it('a red target sends the job back with its runs counted, so the next drain does not spend the allowance again', () => {
    const member = job(1);
    const s = settleTrain(facts([member], [run(1, 'FAIL'), run(2, 'FAIL')]), fail, {
      step: 'target_checked',
      health: { kind: 'red', cached: false, gate: 'test', status: 'exit 1', log: null, train: 't1-target' },
    });
    const requeued = s.changes.find((c) => c.event === 'requeued') as JobChange;
    const record = patched(requeued, member);
    expect(record.trainRuns).toEqual({ key: KEY, runs: 2, reruns: 1, fails: 2 });
    expect(decideRerun({ members: 1, prior: record.trainRuns as TrainRuns, runs: [run(1, 'FAIL', { cached: true })] }, retriesRule(1))).toEqual({
      kind: 'settle',
      why: 'allowance_spent',
    });
  });

  it('infra requeues of the same train stop at five runs in all, whatever retries.infra allows', () => {
    const member = job(1, { requeues: { infra: 4 } });
    const fourth = settleTrain(facts([member], [run(1, 'INFRA')], { key: KEY, runs: 3, reruns: 0 }), infra, { step: 'judged' });
    expect(fourth.changes.map((c) => c.to)).toEqual(['queued']);
    expect(patched(fourth.changes[0] as JobChange, member).trainRuns).toEqual({ key: KEY, runs: 4, reruns: 0, fails: 0 });
    const fifth = settleTrain(facts([member], [run(1, 'INFRA')], { key: KEY, runs: 4, reruns: 0 }), infra, { step: 'judged' });
    expect(fifth.changes.map((c) => c.to)).toEqual(['failed']);
    expect(patched(fifth.changes[0] as JobChange, member).error?.message).toContain('gave up: this train was gated 5 times');
  });
});
