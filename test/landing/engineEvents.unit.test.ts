// Sentences of the drain events for an infrastructure back-off and the red-target check.
import { describe, expect, it } from 'vitest';
import { initialLiveState, nextLiveState, toneOf } from '../../lib/cli/progress/live.js';
import { describeEvent } from '../../lib/landing/events.js';

const BASE = 'b'.repeat(40);

describe('describeEvent: back-off and target check', () => {
  it('says that the drainer waits after an infrastructure failure, and how long', () => {
    expect(describeEvent({ type: 'backing_off', seconds: 2, reason: 'gate_not_started' })).toBe(
      'infrastructure failure (gate_not_started); waiting 2s before the next train',
    );
  });

  it('says when the target itself is gated and what its gates said', () => {
    const names = (job: string) => (job === 'j-1' ? 'feature/x' : null);
    expect(describeEvent({ type: 'checking_target', target: 'main', base: BASE, train: 'b-1-target', job: 'j-1' }, names)).toBe(
      `  feature/x (j-1) failed alone; gating main itself at ${BASE.slice(0, 12)} (train b-1-target) to tell a red target from a culprit`,
    );
    const checked = { type: 'target_checked', target: 'main', base: BASE, cached: false, gate: null, status: null, log: null } as const;
    expect(describeEvent({ ...checked, verdict: 'PASS', cached: true })).toBe(
      `  main at ${BASE.slice(0, 12)} passes its own gates (verdict cache): the job's change is the cause`,
    );
    expect(describeEvent({ ...checked, verdict: 'FAIL', gate: 'test', status: 'exit 1', log: '/l/b-1-target.log' })).toBe(
      `  main at ${BASE.slice(0, 12)} fails gate test (exit 1) on its own; log /l/b-1-target.log`,
    );
    expect(describeEvent({ ...checked, verdict: 'UNKNOWN', status: 'worktree: disk full' })).toContain(
      "could not be gated (worktree: disk full); the job's own verdict stands",
    );
  });
});

describe('the live block during a target check and a back-off', () => {
  const empty = initialLiveState(4);
  it('says the target itself is being gated, and that the drainer waits after an infrastructure failure', () => {
    const checking = nextLiveState(empty, { type: 'checking_target', target: 'main', base: 'a'.repeat(40), train: 'b-1-target', job: 'j-1' }, 0, () => null);
    expect(checking.activity).toBe(`gating main itself at ${'a'.repeat(12)}`);
    const waiting = nextLiveState(checking, { type: 'backing_off', seconds: 4, reason: 'gate_not_started' }, 0, () => null);
    expect(waiting.activity).toBe('infrastructure failure; waiting 4s before the next train');
  });
  it('colours a red target as a failure', () => {
    expect(
      toneOf({ type: 'target_checked', target: 'main', base: 'a'.repeat(40), verdict: 'FAIL', cached: false, gate: 'test', status: 'exit 1', log: null }),
    ).toBe('bad');
    expect(toneOf({ type: 'target_checked', target: 'main', base: 'a'.repeat(40), verdict: 'PASS', cached: true, gate: null, status: null, log: null })).toBe(
      'plain',
    );
    expect(toneOf({ type: 'backing_off', seconds: 1, reason: 'gate_not_started' })).toBe('warn');
  });
});
