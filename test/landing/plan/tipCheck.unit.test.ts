// The admission check of a job's tip, as pure decisions: git's `cat-file --batch-check` answer
// parsed, classified (a commit rides; missing, not a commit or unreadable fails the job with
// bad_tip), and turned into the failure's record change and event.
import { describe, expect, it } from 'vitest';
import { parseBatchCheck } from '../../../lib/git/index.js';
import { badTipSteps, classifyTip } from '../../../lib/landing/plan/tipCheck.js';
import { newJobRecord } from '../../../lib/queue/index.js';

const TIP = 'a'.repeat(40);
const OTHER = 'b'.repeat(40);
const CORRUPT = 'c'.repeat(40);

describe('parseBatchCheck', () => {
  it('reads one answer per asked name, in order; an object whose header git cannot unpack is unreadable', () => {
    const stdout = `${TIP} commit 230\n${OTHER} missing\n${CORRUPT} missing\n`;
    const stderr = `error: inflate: data stream error (incorrect header check)\nerror: unable to unpack ${CORRUPT} header\n`;
    expect([...parseBatchCheck([TIP, OTHER, CORRUPT], stdout, stderr)]).toEqual([
      [TIP, { kind: 'found', type: 'commit' }],
      [OTHER, { kind: 'missing' }],
      [CORRUPT, { kind: 'unreadable', reason: `unable to unpack ${CORRUPT} header` }],
    ]);
    expect(parseBatchCheck([TIP], `${TIP} ambiguous\n`).get(TIP)).toEqual({ kind: 'missing' });
    expect(parseBatchCheck([TIP], `${TIP} tree 33\n`).get(TIP)).toEqual({ kind: 'found', type: 'tree' });
  });
});

describe('classifyTip', () => {
  it('a commit rides', () => {
    expect(classifyTip(TIP, { kind: 'found', type: 'commit' })).toEqual({ kind: 'ok' });
  });

  it('a tree, a blob or a tag is not a commit, named with what it is', () => {
    for (const type of ['tree', 'blob', 'tag']) {
      expect(classifyTip(TIP, { kind: 'found', type })).toEqual({ kind: 'not_commit', type, message: `tip aaaaaaaaaaaa is a ${type}, not a commit` });
    }
  });

  it('a tip git does not have (or did not answer for) is missing; one it cannot read is unreadable', () => {
    const missing = { kind: 'missing', message: 'tip aaaaaaaaaaaa is not in this repository (a deleted branch pruned by git gc, or a tip never pushed?)' };
    expect(classifyTip(TIP, { kind: 'missing' })).toEqual(missing);
    expect(classifyTip(TIP, undefined)).toEqual(missing);
    expect(classifyTip(TIP, { kind: 'unreadable', reason: 'unable to unpack x header' })).toEqual({
      kind: 'unreadable',
      reason: 'unable to unpack x header',
      message: 'tip aaaaaaaaaaaa cannot be read: unable to unpack x header',
    });
  });
});

describe('badTipSteps', () => {
  it('fails each job where it stands (queued or riding) with reason bad_tip, while its tip is still that one', () => {
    const job = newJobRecord({ id: 'j-1', branch: 'feature', tip: TIP, title: 'feature', submitter: 'dev', urgent: false });
    const verdict = classifyTip(TIP, { kind: 'found', type: 'tree' });
    if (verdict.kind === 'ok') throw new Error('a tree is no commit');
    const steps = badTipSteps([{ job, verdict }]);
    expect(steps.events).toEqual([{ type: 'failed', job: 'j-1', reason: 'bad_tip', message: 'tip aaaaaaaaaaaa is a tree, not a commit' }]);
    const [change] = steps.changes;
    expect(change).toMatchObject({ id: 'j-1', to: 'failed', from: ['queued', 'in_progress'], lenient: true, event: 'failed' });
    expect(change?.detail).toMatchObject({ reason: 'bad_tip', code: 'bad_tip', tip: TIP, found: 'tree' });
    expect(change?.when?.(job)).toBe(true);
    expect(change?.when?.({ ...job, tip: OTHER })).toBe(false); // a new tip submitted meanwhile is checked on its own
    const patch = typeof change?.patch === 'function' ? change.patch(job) : {};
    expect(patch).toMatchObject({ reason: 'bad_tip', error: { code: 'bad_tip', message: 'tip aaaaaaaaaaaa is a tree, not a commit' } });
  });
});
