// The settlement of a judged train, case by case, as plain values: no git, no files.
import { describe, expect, it } from 'vitest';
import type { Judgement } from '../../../lib/landing/gates/judge.js';
import { effectNeeded, settleTrain, type Found, type Settlement, type TrainFacts } from '../../../lib/landing/plan/settlement.js';
import { newJobRecord, type JobChange } from '../../../lib/queue/index.js';
import { metricsRowSchema, type GateTelemetry, type JobRecord } from '../../../lib/store/index.js';

const TIP = 'a'.repeat(40);
const BASE = 'b'.repeat(40);
const COMMIT = 'c'.repeat(40);
const TREE = 'd'.repeat(40);
const NOW = '2026-11-30T12:00:00.000Z';

function job(n: number, extra: Partial<JobRecord> = {}): JobRecord {
  const base = newJobRecord({ id: `j-20261130-${String(n).padStart(4, '0')}`, branch: `b${n}`, tip: TIP, title: `b${n}`, submitter: 't', urgent: false });
  return { ...base, state: 'in_progress', batch: { id: 'b-1', members: [], attempt: 1, index: 0 }, ...extra };
}

const waitingHalf = (n: number) => job(n, { state: 'queued', requeued: true, reason: 'bisected', batch: { id: 'b-1', members: [], attempt: 2, index: 0 } });

function facts(members: JobRecord[], extra: Partial<TrainFacts> = {}): TrainFacts {
  return {
    target: 'main',
    batchId: 'b-1',
    trainId: 'b-1-t1',
    attempt: 1,
    members,
    train: { kind: 'merge', base: BASE, commit: COMMIT, tree: TREE },
    policy: { retries: { infra: 2, casLost: 3 }, batch: { max: 8 } },
    window: 4,
    waiting: [],
    now: NOW,
    ...extra,
  };
}

const telemetry: GateTelemetry = { mode: 'full', executed: ['test'], gatesHash: 'h' };
const common = { cached: false, seconds: 3, log: '/state/logs/b-1-t1.log', telemetry, ledger: null, refreshed: null };
const pass: Judgement = { verdict: 'PASS', failure: null, ...common };
const fail: Judgement = { verdict: 'FAIL', failure: { kind: 'fail', reason: 'gate', gate: 'test', status: 'exit 1' }, ...common };
const refused: Judgement = { verdict: 'FAIL', failure: { kind: 'refused', reason: 'policy_refused', gate: 'batch', status: 'exit 2' }, ...common };
const infra: Judgement = {
  verdict: 'INFRA',
  failure: { kind: 'infra', reason: 'no_lane', gate: 'batch', status: 'exit 3', stderr: 'no lane answered' },
  ...common,
};
const stopped: Judgement = { verdict: 'STOPPED', failure: { kind: 'stopped', gate: 'test' }, ...common };
const judged: Found = { step: 'judged' };

/** A change as it lands on a record: the id, the states it moves between, the event and the patched record. */
function applied(change: JobChange, record: JobRecord) {
  const patch = typeof change.patch === 'function' ? change.patch(record) : (change.patch ?? {});
  return { id: change.id, to: change.to, from: change.from, event: change.event, detail: change.detail, record: { ...record, ...patch } };
}

function on(settlement: Settlement, jobs: readonly JobRecord[]) {
  return settlement.changes.map((change) => applied(change, jobs.find((j) => j.id === change.id) as JobRecord));
}

describe('effectNeeded', () => {
  it('asks for the CAS after a PASS, the target check after a lone job failed, nothing otherwise', () => {
    expect(effectNeeded(pass, [job(1), job(2)])).toBe('landing');
    expect(effectNeeded(fail, [job(1)])).toBe('target_check');
    expect(effectNeeded(fail, [job(1), job(2)])).toBe('none');
    expect(effectNeeded(refused, [job(1)])).toBe('none');
    expect(effectNeeded(infra, [job(1)])).toBe('none');
    expect(effectNeeded(stopped, [job(1)])).toBe('none');
  });
});

describe('settleTrain', () => {
  it('PASS of a train that cleared the failed train it was built on: all land with its commit, each by the kind of the train it rode', () => {
    const members = [job(1), job(2), job(3)];
    const cleared = { members: [members[0]?.id as string], kind: 'fast-forward' as const, train: 'b-1-t0', gate: 'test', status: 'exit 1', log: '/l' };
    const s = settleTrain(facts(members, { cleared }), pass, { step: 'landing', outcome: { kind: 'landed', warning: null } });
    const changes = on(s, members);
    expect(changes.map((c) => [c.id, c.to, c.record.landedVia, c.record.train])).toEqual([
      // The cleared member's journal line, written with the landing; then the landings.
      [members[0]?.id, undefined, null, null],
      [members[0]?.id, 'landed', 'fast-forward', COMMIT],
      [members[1]?.id, 'landed', 'merge', COMMIT],
      [members[2]?.id, 'landed', 'merge', COMMIT],
    ]);
    expect(changes[0]).toMatchObject({ event: 'cleared', detail: { train: 'b-1-t0', by: 'b-1-t1', gate: 'test', status: 'exit 1', log: '/l' } });
    expect(s.events.map((e) => e.type)).toEqual(['cleared', 'landed', 'window']);
    expect(s.events[0]).toMatchObject({ train: 'b-1-t0', by: 'b-1-t1', members: [members[0]?.id] });
    // A landing not made says nothing of clearing: the members go back as the lost CAS says.
    const lost = settleTrain(facts(members, { cleared }), pass, { step: 'landing', outcome: { kind: 'lost', actual: null } });
    expect(lost.changes.map((c) => c.event)).not.toContain('cleared');
    expect(s.window).toMatchObject({ decided: { jobs: 3, culprits: 0 } });
    expect(s.metric).toMatchObject({ verdict: 'PASS', landed: true, members: members.map((m) => m.id) });
  });

  it('PASS, landed: every member landed, the window is sized again (no culprit recorded: batch.max), one landed metrics row, then publish', () => {
    const members = [job(1), job(2)];
    const s = settleTrain(facts(members), pass, { step: 'landing', outcome: { kind: 'landed', warning: null } });
    const changes = on(s, members);
    expect(changes.map((c) => [c.id, c.to, c.event])).toEqual([
      [members[0]?.id, 'landed', 'landed'],
      [members[1]?.id, 'landed', 'landed'],
    ]);
    expect(changes[0]?.record).toMatchObject({
      train: COMMIT,
      base: BASE,
      tree: TREE,
      landedVia: 'merge',
      verdict: 'PASS',
      gateLog: common.log,
      gate: telemetry,
    });
    expect(s.window).toEqual({ event: 'PASS', before: 4, after: 8, decided: { jobs: 2, culprits: 0 } });
    expect(s.metric).toMatchObject({
      at: NOW,
      train: 'b-1-t1',
      batch: 'b-1',
      attempt: 1,
      members: members.map((m) => m.id),
      branches: ['b1', 'b2'],
      verdict: 'PASS',
      reason: null,
      windowBefore: 4,
      windowAfter: 8,
      landed: true,
      gateSeconds: 3,
    });
    expect(s.events).toEqual([
      { type: 'landed', train: 'b-1-t1', commit: COMMIT, via: 'merge', members: members.map((m) => m.id) },
      { type: 'window', before: 4, after: 8, event: 'PASS' },
    ]);
    expect(s.next).toEqual({ next: 'publish', commit: COMMIT });
  });

  it('PASS on a later attempt or from the cache lands and counts its members for the culprit rate; a checkout warning is said first', () => {
    const members = [job(1)];
    const s = settleTrain(
      facts(members, { attempt: 2 }),
      { ...pass, cached: true },
      { step: 'landing', outcome: { kind: 'landed', warning: 'the checkout could not follow' } },
    );
    // Recorded: 10 jobs, 2 culprits, faded by this one job (RATE_DECAY): (1.94 + 1) / (10.7 + 7),
    // about 1/6, odds 5.0: the window is round(1.3 x 5.0) = 7.
    const s2 = settleTrain(
      facts(members, { attempt: 2, tally: { jobs: 10, culprits: 2 } }),
      { ...pass, cached: true },
      { step: 'landing', outcome: { kind: 'landed', warning: 'the checkout could not follow' } },
    );
    expect(s.window).toEqual({ event: 'PASS', before: 4, after: 8, decided: { jobs: 1, culprits: 0 } });
    expect(s2.window).toEqual({ event: 'PASS', before: 4, after: 7, decided: { jobs: 1, culprits: 0 } });
    expect(s2.metric).toMatchObject({ windowBefore: 4, windowAfter: 7, landed: true, cached: true });
    expect(s2.events.map((e) => e.type)).toEqual(['warning', 'landed', 'window']);
  });

  it('PASS at batch.max records the window (history) without a window event', () => {
    const s = settleTrain(facts([job(1)], { window: 8 }), pass, { step: 'landing', outcome: { kind: 'landed', warning: null } });
    expect(s.window).toEqual({ event: 'PASS', before: 8, after: 8, decided: { jobs: 1, culprits: 0 } });
    expect(s.events.map((e) => e.type)).toEqual(['landed']);
  });

  it('FAIL of a batch: the window stays (nothing decided yet), the second half goes back bisected at attempt + 1, the first half rides next', () => {
    const members = [job(1), job(2), job(3)];
    // 100 clean jobs recorded: the expected rate is low, so the train is halved (splitFor).
    const s = settleTrain(facts(members, { tally: { jobs: 100, culprits: 0 } }), fail, judged);
    const changes = on(s, members);
    expect(changes.map((c) => [c.id, c.to, c.event])).toEqual([[members[2]?.id, 'queued', 'requeued']]);
    expect(changes[0]?.record).toMatchObject({ requeued: true, reason: 'bisected', batch: { id: 'b-1', members: [members[2]?.id], attempt: 2, index: 0 } });
    expect(s.window).toBeNull();
    expect(s.metric).toMatchObject({ verdict: 'FAIL', reason: 'gate', windowBefore: 4, windowAfter: 4, landed: false });
    expect(s.events).toEqual([{ type: 'bisected', train: 'b-1-t1', attempt: 1, first: [members[0]?.id, members[1]?.id], second: [members[2]?.id] }]);
    expect(s.next).toEqual({ next: 'first_half', members: [members[0], members[1]], attempt: 2, requeued: [members[2]] });
  });

  it('FAIL of a batch in a new repository: split where the prior rate (1/7) expects the fewest runs, 3 + 5 of 8', () => {
    const members = Array.from({ length: 8 }, (_, i) => job(i + 1));
    const s = settleTrain(facts(members), fail, judged);
    expect(s.next).toMatchObject({ next: 'first_half', members: members.slice(0, 3), requeued: members.slice(3) });
  });

  it('FAIL of a singleton on a green target: the job fails with its gate and log, and the waiting halves rejoin', () => {
    const culprit = job(1, { batch: { id: 'b-1', members: [], attempt: 3, index: 0 } });
    const half = waitingHalf(2);
    const s = settleTrain(facts([culprit], { attempt: 3, waiting: [half] }), fail, {
      step: 'target_checked',
      health: { kind: 'green', cached: true, log: null },
    });
    const changes = on(s, [culprit, half]);
    expect(changes.map((c) => [c.id, c.to, c.event])).toEqual([
      [culprit.id, 'failed', 'failed'],
      [half.id, undefined, 'culprit_found'],
    ]);
    const message = `gate test: exit 1; log ${common.log}`;
    expect(changes[0]?.record).toMatchObject({
      reason: 'gate',
      error: { code: 'gate', message },
      verdict: 'FAIL',
      tree: TREE,
      base: BASE,
      gateLog: common.log,
      gate: telemetry,
    });
    expect(changes[1]?.record.reason).toBe('culprit_found');
    // The culprit is recorded whatever the attempt: (1 + 1) / (1 + 7) = 1/4, the window for it is 2.
    expect(s.window).toEqual({ event: 'FAIL', before: 4, after: 2, decided: { jobs: 1, culprits: 1 } });
    expect(s.events).toEqual([
      { type: 'target_checked', target: 'main', base: BASE, verdict: 'PASS', cached: true, gate: null, status: null, log: null },
      { type: 'window', before: 4, after: 2, event: 'FAIL' },
      { type: 'failed', job: culprit.id, reason: 'gate', message, gate: 'test', status: 'exit 1' },
    ]);
    expect(s.next).toEqual({ next: 'done' });
  });

  it('a waiting half moves only while it still waits: the rejoin is checked again under the lock', () => {
    const half = waitingHalf(2);
    const s = settleTrain(facts([job(1)], { waiting: [half] }), fail, { step: 'target_checked', health: { kind: 'green', cached: false, log: null } });
    const rejoin = s.changes.find((c) => c.id === half.id) as JobChange;
    expect(rejoin.lenient).toBe(true);
    expect(rejoin.when?.(half)).toBe(true);
    expect(rejoin.when?.({ ...half, reason: null, requeued: false, batch: null })).toBe(false);
  });

  it('FAIL of a singleton when the target could not be gated: the job fails, and the message says so', () => {
    const s = settleTrain(facts([job(1)]), fail, { step: 'target_checked', health: { kind: 'unknown', status: 'no_lane: exit 3', log: null } });
    const message = `gate test: exit 1; log ${common.log}; main itself could not be gated (no_lane: exit 3)`;
    expect(s.events).toContainEqual({ type: 'failed', job: job(1).id, reason: 'gate', message, gate: 'test', status: 'exit 1' });
    expect(s.window).toEqual({ event: 'FAIL', before: 4, after: 2, decided: { jobs: 1, culprits: 1 } });
  });

  it('FAIL of a singleton on a red target: the job goes back unjudged with the evidence, the halves rejoin, the drain stops', () => {
    const lone = job(1);
    const half = waitingHalf(2);
    const health = { kind: 'red' as const, cached: false, gate: 'test', status: 'exit 1', log: '/state/logs/b-1-target.log', train: 'b-1-target' };
    const s = settleTrain(facts([lone], { waiting: [half] }), fail, { step: 'target_checked', health });
    const changes = on(s, [lone, half]);
    expect(changes.map((c) => [c.id, c.to, c.event])).toEqual([
      [lone.id, 'queued', 'requeued'],
      [half.id, undefined, 'target_red'],
    ]);
    expect(changes[0]?.detail).toEqual({
      reason: 'target_red',
      targetCheck: { target: 'main', base: BASE, gate: 'test', status: 'exit 1', log: health.log, judgedBy: 'b-1-target', cached: false },
    });
    expect(changes[0]?.record).toMatchObject({ requeued: true, reason: 'target_red', batch: { id: 'b-1', attempt: 1 }, requeues: {} });
    expect(s.window).toBeNull();
    expect(s.metric).toMatchObject({ verdict: 'FAIL', reason: 'target_red', windowBefore: 4, windowAfter: 4, landed: false });
    expect(s.events.map((e) => e.type)).toEqual(['target_checked', 'requeued']);
    expect(s.next).toMatchObject({ next: 'stop', why: 'target_red' });
    expect(s.next.next === 'stop' && s.next.message).toContain('main itself fails gate test (exit 1)');
  });

  it('FAIL of a singleton whose target check was stopped: back unjudged, no rejoin, the drain stops as interrupted', () => {
    const s = settleTrain(facts([job(1)], { waiting: [waitingHalf(2)] }), fail, { step: 'target_checked', health: { kind: 'stopped' } });
    expect(s.changes.map((c) => c.event)).toEqual(['requeued']);
    expect(s.changes[0]?.detail).toEqual({ reason: 'interrupted' });
    expect(s.metric).toMatchObject({ reason: 'gate' });
    expect(s.next).toEqual({ next: 'stop', why: 'interrupted', message: 'the gate was stopped by a signal' });
  });

  it('a cached FAIL fails the lone job, and the culprit counts for the window', () => {
    const cached: Judgement = {
      ...fail,
      failure: { kind: 'fail', reason: 'gate', gate: 'test', status: 'exit 1 (cached: the same tree failed in train b-0-t1)' },
      cached: true,
      seconds: 0,
    };
    const s = settleTrain(facts([job(1)]), cached, { step: 'target_checked', health: { kind: 'green', cached: true, log: null } });
    expect(s.window).toEqual({ event: 'FAIL', before: 4, after: 2, decided: { jobs: 1, culprits: 1 } });
    expect(s.metric).toMatchObject({ cached: true, windowBefore: 4, windowAfter: 2, reason: 'gate' });
    expect(on(s, [job(1)])[0]?.record.error?.message).toContain('cached: the same tree failed in train b-0-t1');
  });

  it('a policy refusal fails every member of the batch, no bisection', () => {
    const members = [job(1), job(2)];
    const s = settleTrain(facts(members), refused, judged);
    expect(on(s, members).map((c) => [c.id, c.to, c.record.reason])).toEqual([
      [members[0]?.id, 'failed', 'policy_refused'],
      [members[1]?.id, 'failed', 'policy_refused'],
    ]);
    expect(s.window).toBeNull(); // a refusal names no culprit: the rate does not change
    expect(s.next).toEqual({ next: 'done' });
  });

  it('INFRA under retries.infra: the members go back, counted, and the drain backs off', () => {
    const members = [job(1), job(2, { requeues: { infra: 1 } })];
    const s = settleTrain(facts(members), infra, judged);
    const changes = on(s, members);
    expect(changes.map((c) => [c.id, c.to, c.record.reason, c.record.requeues])).toEqual([
      [members[0]?.id, 'queued', 'no_lane', { infra: 1 }],
      [members[1]?.id, 'queued', 'no_lane', { infra: 2 }],
    ]);
    const message = 'gate batch: exit 3 (no_lane): no lane answered; nothing was tested';
    expect(s.events).toEqual([{ type: 'requeued', train: 'b-1-t1', jobs: members.map((m) => m.id), reason: message }]);
    expect(s.metric).toMatchObject({ verdict: 'INFRA', reason: 'no_lane', windowBefore: 4, windowAfter: 4 });
    expect(s.window).toBeNull();
    expect(s.next).toEqual({ next: 'done', infra: 'no_lane' });
  });

  it('INFRA over retries.infra: that member fails, the others go back', () => {
    const members = [job(1), job(2, { requeues: { infra: 2 } })];
    const s = settleTrain(facts(members), infra, judged);
    const changes = on(s, members);
    expect(changes.map((c) => [c.id, c.to])).toEqual([
      [members[0]?.id, 'queued'],
      [members[1]?.id, 'failed'],
    ]);
    expect(changes[1]?.record.error).toEqual({
      code: 'no_lane',
      message: 'gate batch: exit 3 (no_lane): no lane answered; nothing was tested; gave up after 2 retries',
    });
    expect(s.events.map((e) => e.type)).toEqual(['requeued', 'failed']);
  });

  it('STOPPED: the members go back at the same attempt, a void row keeps the gates spent, the drain stops', () => {
    const members = [job(1), job(2)];
    const s = settleTrain(facts(members), stopped, judged);
    expect(on(s, members).map((c) => [c.to, c.record.reason, c.record.requeued])).toEqual([
      ['queued', 'interrupted', true],
      ['queued', 'interrupted', true],
    ]);
    expect(s.metric).toMatchObject({ verdict: 'VOID', reason: 'interrupted', landed: false, members: members.map((m) => m.id), gate: stopped.telemetry });
    expect(s.metric?.windowAfter).toBe(s.metric?.windowBefore);
    expect(s.window).toBeNull();
    expect(s.next).toEqual({ next: 'stop', why: 'interrupted', message: 'the gate was stopped by a signal' });
  });

  it('members withdrawn during the gate: the canceled one is canceled, the others go back, the run is void', () => {
    const canceled = job(1, { stopRequest: { kind: 'cancel', by: 'ann', forJob: null, at: NOW } });
    const stays = job(2);
    const s = settleTrain(facts([job(1), job(2)]), pass, { step: 'withdrawn', fresh: [canceled, stays] });
    const changes = on(s, [canceled, stays]);
    expect(changes.map((c) => [c.id, c.to, c.event])).toEqual([
      [canceled.id, 'canceled', 'canceled'],
      [stays.id, 'queued', 'requeued'],
    ]);
    expect(changes[0]?.detail).toEqual({ by: 'ann' });
    expect(changes[1]?.record).toMatchObject({ reason: 'withdrawn', requeued: true, batch: { id: 'b-1', members: [stays.id], attempt: 1 } });
    // The run is void, but its gates ran: a VOID row (nothing it found counts; the window stays).
    expect(s.metric).toMatchObject({ verdict: 'VOID', reason: 'withdrawn', landed: false, gateSeconds: pass.seconds, gate: pass.telemetry });
    expect(s.metric?.windowAfter).toBe(s.metric?.windowBefore);
    expect(metricsRowSchema.safeParse(s.metric).success).toBe(true);
    expect(s.window).toBeNull();
    expect(s.events).toEqual([
      { type: 'canceled', job: canceled.id },
      { type: 'requeued', train: 'b-1-t1', jobs: [stays.id], reason: 'a member withdrew during the gate; run void' },
    ]);
    expect(s.next).toEqual({ next: 'done' });
  });

  it('a preempted member goes back to the queue, not to the head', () => {
    const preempted = job(1, { stopRequest: { kind: 'preempt', by: 'ann', forJob: 'j-20261130-0009', at: NOW } });
    const s = settleTrain(facts([preempted]), fail, { step: 'withdrawn', fresh: [preempted] });
    expect(on(s, [preempted]).map((c) => [c.to, c.record.reason, c.record.requeued])).toEqual([['queued', 'preempted', false]]);
    expect(s.events).toEqual([{ type: 'requeued', train: null, jobs: [preempted.id], reason: 'preempted' }]);
  });

  it('CAS lost under retries.casLost: the members go back, counted, to be rebuilt', () => {
    const members = [job(1), job(2)];
    const s = settleTrain(facts(members), pass, { step: 'landing', outcome: { kind: 'lost', actual: 'e'.repeat(40) } });
    expect(on(s, members).map((c) => [c.to, c.record.reason, c.record.requeues])).toEqual([
      ['queued', 'cas_lost', { casLost: 1 }],
      ['queued', 'cas_lost', { casLost: 1 }],
    ]);
    expect(s.metric).toMatchObject({ verdict: 'PASS', reason: 'cas_lost', landed: false, windowBefore: 4, windowAfter: 4 });
    expect(s.events).toEqual([
      { type: 'requeued', train: 'b-1-t1', jobs: members.map((m) => m.id), reason: `the target moved to ${'e'.repeat(12)} during the gate; rebuilding` },
    ]);
    expect(s.window).toBeNull();
    expect(s.next).toEqual({ next: 'done' });
  });

  it('CAS lost over retries.casLost: that member fails', () => {
    const members = [job(1, { requeues: { casLost: 3 } }), job(2)];
    const s = settleTrain(facts(members), pass, { step: 'landing', outcome: { kind: 'lost', actual: null } });
    const changes = on(s, members);
    expect(changes.map((c) => [c.id, c.to])).toEqual([
      [members[1]?.id, 'queued'],
      [members[0]?.id, 'failed'],
    ]);
    expect(changes[1]?.record.error).toEqual({ code: 'cas_lost', message: 'the target kept moving; gave up after 3 rebuilds' });
    expect(s.events).toEqual([
      { type: 'requeued', train: 'b-1-t1', jobs: [members[1]?.id], reason: 'the target moved to (deleted) during the gate; rebuilding' },
    ]);
  });

  it('target_dirty: the members go back uncounted and the drain stops, naming the checkout', () => {
    const members = [job(1)];
    const s = settleTrain(facts(members), pass, { step: 'landing', outcome: { kind: 'target_dirty', worktree: '/work/repo' } });
    expect(on(s, members).map((c) => [c.to, c.record.reason, c.record.requeues])).toEqual([['queued', 'target_dirty', {}]]);
    expect(s.metric).toMatchObject({ verdict: 'PASS', reason: 'target_dirty', landed: false });
    expect(s.next).toEqual({
      next: 'stop',
      why: 'target_dirty',
      message:
        'main is checked out with uncommitted changes at /work/repo; nothing landed: commit or stash them, or keep them on a branch of their own ' +
        '(git -C /work/repo switch -c <branch>), then run land again (a drainer needs no checkout of main: git worktree add --detach ../land-drain; ' +
        'docs/drain.md#a-dirty-target-checkout)',
    });
  });

  it("hook_off: nothing was tried; the members go back to the head uncounted, the window stays and the drain stops with the hook's message", () => {
    const members = [job(1), job(2)];
    const message =
      "core.hooksPath now points at /dev/null: land's hook in /repo/.git/hooks would not run; remove the setting or run `land hooks install` again";
    const s = settleTrain(facts(members), pass, { step: 'landing', outcome: { kind: 'hook_off', message } });
    expect(on(s, members).map((c) => [c.id, c.to, c.record.reason, c.record.requeues])).toEqual([
      [members[0]?.id, 'queued', 'hook_off', {}],
      [members[1]?.id, 'queued', 'hook_off', {}],
    ]);
    expect(s.metric).toMatchObject({ verdict: 'PASS', reason: 'hook_off', landed: false, windowBefore: 4, windowAfter: 4 });
    expect(s.window).toBeNull();
    expect(s.events).toEqual([{ type: 'requeued', train: 'b-1-t1', jobs: [members[0]?.id, members[1]?.id], reason: 'hook_off' }]);
    expect(s.next).toEqual({ next: 'stop', why: 'hook_off', message });
  });

  it('a PASS is never settled without its landing', () => {
    expect(() => settleTrain(facts([job(1)]), pass, judged)).toThrow(/after its landing/);
  });
});
