// The sentences of `land run` name branches, not only ids. describeEvent is pure: the branch
// names come from the lookup it is given, and an unknown id is shown as it is.
import { describe, expect, it } from 'vitest';
import { describeEvent, jobLabel, type JobNames } from '../../lib/landing/events.js';

const BRANCHES: Record<string, string> = { 'j-20261130-0001': 'feature/login', 'j-20261130-0002': 'feature/x', 'j-20261130-0003': 'fix/typo' };
const names: JobNames = (job) => BRANCHES[job] ?? null;
const COMMIT = 'a'.repeat(40);

describe('describeEvent', () => {
  it('says which branch landed, with its id, one line per member', () => {
    const text = describeEvent({ type: 'landed', train: 't-1', commit: COMMIT, via: 'merge', members: ['j-20261130-0001', 'j-20261130-0002'] }, names);
    expect(text.split('\n')).toEqual([
      `  landed feature/login (j-20261130-0001) as ${COMMIT.slice(0, 12)} (merge)`,
      `  landed feature/x (j-20261130-0002) as ${COMMIT.slice(0, 12)} (merge)`,
    ]);
  });

  it('says which branch failed and why, without repeating a reason its message already gives', () => {
    expect(describeEvent({ type: 'failed', job: 'j-20261130-0002', reason: 'gate', message: 'gate test: exit 1; log /l.log' }, names)).toBe(
      '  failed feature/x (j-20261130-0002): gate test: exit 1; log /l.log',
    );
    expect(describeEvent({ type: 'failed', job: 'j-20261130-0002', reason: 'conflict', message: 'a.txt, b.txt' }, names)).toBe(
      '  failed feature/x (j-20261130-0002): conflict: a.txt, b.txt',
    );
  });

  it('lists a train by its branches, and a bisection by the branches of each half', () => {
    expect(
      describeEvent(
        {
          type: 'train_built',
          train: 't-1',
          attempt: 2,
          kind: 'merge',
          base: COMMIT,
          commit: COMMIT,
          tree: COMMIT,
          members: ['j-20261130-0001', 'j-20261130-0003'],
        },
        names,
      ),
    ).toBe(`train t-1 round 2: 2 member(s) [feature/login fix/typo] merge on ${COMMIT.slice(0, 12)}`);
    expect(
      describeEvent({ type: 'bisected', train: 't-1', attempt: 1, first: ['j-20261130-0001'], second: ['j-20261130-0002', 'j-20261130-0003'] }, names),
    ).toBe('  bisecting: [feature/login] next, [feature/x fix/typo] back to the head of the queue');
  });

  it('names the jobs of a requeue, a cancel, a skip, a recovery and a fast path', () => {
    expect(describeEvent({ type: 'requeued', train: 't-1', jobs: ['j-20261130-0001', 'j-20261130-0002'], reason: 'target_dirty' }, names)).toBe(
      '  requeued feature/login (j-20261130-0001), feature/x (j-20261130-0002): target_dirty',
    );
    expect(describeEvent({ type: 'canceled', job: 'j-20261130-0003' }, names)).toBe('  canceled fix/typo (j-20261130-0003)');
    expect(describeEvent({ type: 'member_skipped', train: 't-1', job: 'j-20261130-0003', against: 'train', paths: ['x.txt'] }, names)).toBe(
      '  fix/typo (j-20261130-0003) conflicts with the train (x.txt)',
    );
    expect(describeEvent({ type: 'recovered', job: 'j-20261130-0001', to: 'landed', train: null }, names)).toBe(
      'recovered feature/login (j-20261130-0001) from a stopped drainer: landed',
    );
    expect(describeEvent({ type: 'fast_path', job: 'j-20261130-0001', source: 'proof', tree: COMMIT }, names)).toContain(
      'feature/login (j-20261130-0001) is already proven (proof)',
    );
  });

  it('gives the log path when a gate starts', () => {
    expect(describeEvent({ type: 'gate_started', train: 't-1', gate: 'test', log: '/repo/.git/land/logs/t-1.log' }, names)).toBe(
      '  gate test started; log /repo/.git/land/logs/t-1.log',
    );
  });

  it('says when a gate that failed is advisory: its failure is not counted', () => {
    const finished = { type: 'gate_finished' as const, train: 't-1', gate: 'e2e', status: 'exit 1', seconds: 0.03 };
    expect(describeEvent(finished, names)).toBe('  gate e2e: exit 1 (0.03s)');
    expect(describeEvent({ ...finished, advisory: true }, names)).toBe('  gate e2e: exit 1 (0.03s; advisory, not counted)');
  });

  it('falls back to the bare id when the lookup does not know the job, or when none is given', () => {
    expect(jobLabel('j-20991231-0001', names)).toBe('j-20991231-0001');
    expect(describeEvent({ type: 'canceled', job: 'j-20991231-0001' }, names)).toBe('  canceled j-20991231-0001');
    expect(describeEvent({ type: 'canceled', job: 'j-20261130-0001' })).toBe('  canceled j-20261130-0001');
  });
});

describe('describeEvent: the target gated first (its FAIL was voided by a red-target stop)', () => {
  const base = { target: 'main', base: COMMIT };
  it('says why the target is gated before any train, and what its verdict means then', () => {
    expect(describeEvent({ type: 'checking_target', ...base, train: 'b-1-target', job: 'j-20261130-0001', first: true }, names)).toBe(
      `  gating main itself at ${COMMIT.slice(0, 12)} (train b-1-target) first: its FAIL was voided when a drain stopped for it`,
    );
    const checked = { type: 'target_checked' as const, ...base, cached: false, gate: null, status: null, log: null, first: true };
    expect(describeEvent({ ...checked, verdict: 'PASS' }, names)).toBe(`  main at ${COMMIT.slice(0, 12)} passes its own gates: the queue drains`);
    expect(describeEvent({ ...checked, verdict: 'UNKNOWN', status: 'exit 127' }, names)).toBe(
      `  main at ${COMMIT.slice(0, 12)} could not be gated (exit 127); the queue drains`,
    );
    expect(describeEvent({ ...checked, first: undefined, verdict: 'PASS' }, names)).toMatch(/the job's change is the cause$/);
  });
});
