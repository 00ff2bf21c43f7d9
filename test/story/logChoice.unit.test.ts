// What `land log` prints for a train (lib/story/logChoice.ts): every case of the decision.
import { describe, expect, it } from 'vitest';
import { newJobRecord } from '../../lib/queue/index.js';
import type { JobRecord } from '../../lib/store/index.js';
import { chooseLog, type LogFacts, noGateLine } from '../../lib/story/logChoice.js';

function failed(reason: string, message: string | null): JobRecord {
  const base = newJobRecord({ id: 'j-7', branch: 'b', tip: '0'.repeat(40), title: 'b', submitter: 'ada@example.com', urgent: false, target: 'main' });
  return { ...base, state: 'failed', reason, error: message === null ? null : { code: reason, message } };
}

const facts = (more: Partial<LogFacts>): LogFacts => ({ own: 'present', judgedBy: null, judgingHere: false, noGate: null, leftOut: false, ...more });

describe('noGateLine', () => {
  it('names the train, the job, its reason and message, and land why, for a failure no gate decided in its latest train', () => {
    expect(noGateLine(failed('conflict', 'conflicts with main at abc in a.txt; rebase and submit again'), 'b-1', true)).toBe(
      'no gate ran with j-7 in train b-1: it failed (conflict): conflicts with main at abc in a.txt; rebase and submit again (land why j-7 tells the story)',
    );
    expect(noGateLine(failed('cas_lost', null), 'b-1', true)).toBe('no gate ran with j-7 in train b-1: it failed (cas_lost) (land why j-7 tells the story)');
  });

  it('is null for a gate-decided failure, an earlier train, or a job that did not fail', () => {
    for (const reason of ['gate', 'timeout', 'no_ledger_line', 'refresh', 'policy_refused']) expect(noGateLine(failed(reason, 'x'), 'b-1', true)).toBeNull();
    expect(noGateLine(failed('conflict', 'x'), 'b-1', false)).toBeNull();
    expect(noGateLine({ ...failed('conflict', 'x'), state: 'queued' }, 'b-1', true)).toBeNull();
  });
});

describe('chooseLog', () => {
  it("prints the train's own log when it is here (the judging train's follows it, in the command)", () => {
    expect(chooseLog(facts({}))).toEqual({ kind: 'own' });
    expect(chooseLog(facts({ judgedBy: 'b-2', judgingHere: true }))).toEqual({ kind: 'own' });
    expect(chooseLog(facts({ noGate: 'line' }))).toEqual({ kind: 'own' }); // a log with text is shown as it is (cas_lost: its gates ran)
    // Left out of the train on a conflict: the train's log is the other members' gates, not its story.
    expect(chooseLog(facts({ noGate: 'line', leftOut: true }))).toEqual({ kind: 'no_gate', line: 'line' });
  });

  it("prints the judging train's log when the cached train's own log is not here and the judging one is", () => {
    expect(chooseLog(facts({ own: 'absent', judgedBy: 'b-2', judgingHere: true }))).toEqual({ kind: 'judging' });
    expect(chooseLog(facts({ own: 'absent', judgedBy: 'b-2', judgingHere: false }))).toEqual({ kind: 'gone' });
  });

  it('says no gate ran for an empty or absent log of a failure no gate decided; else an absent log is gone', () => {
    expect(chooseLog(facts({ own: 'empty', noGate: 'line' }))).toEqual({ kind: 'no_gate', line: 'line' });
    expect(chooseLog(facts({ own: 'absent', noGate: 'line' }))).toEqual({ kind: 'no_gate', line: 'line' });
    expect(chooseLog(facts({ own: 'absent' }))).toEqual({ kind: 'gone' });
    expect(chooseLog(facts({ own: 'empty' }))).toEqual({ kind: 'own' });
  });
});
