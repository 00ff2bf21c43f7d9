// Advisory gates (lib/landing/gates/advisory.ts): the verdict rule. An advisory gate's failure of
// any kind but a stop is recorded and not counted; a gate that is not advisory counts as always.
import { describe, expect, it } from 'vitest';
import { gateSchema } from '../../../lib/config/schema.js';
import { advisoryFailures, countedFailure } from '../../../lib/landing/gates/advisory.js';
import { classify, verdictOf } from '../../../lib/landing/gates/gateRunner.js';
import type { GroupOutcome } from '../../../lib/landing/gates/processGroup.js';

const lint = gateSchema.parse({ name: 'lint', run: 'npm run lint', advisory: true });
const test = gateSchema.parse({ name: 'test', run: 'npm test' });
const endings: Record<string, GroupOutcome> = {
  'exit 1': { kind: 'exited', code: 1, seconds: 1 },
  'timed out': { kind: 'timeout', seconds: 600, exit: { code: null, signal: 'SIGKILL' } },
  'exit 127': { kind: 'exited', code: 127, seconds: 1 },
  signaled: { kind: 'signaled', signal: 'SIGSEGV', seconds: 1 },
};

describe('countedFailure: which failure decides the verdict', () => {
  it.each(Object.keys(endings))("an advisory gate's %s is not counted; the same ending of a gate that is not advisory is", (name) => {
    const ending = endings[name] as GroupOutcome;
    expect(countedFailure(lint, classify(lint, ending))).toBeNull();
    const failure = classify(test, ending);
    expect(failure).not.toBeNull();
    expect(countedFailure(test, failure)).toBe(failure);
    expect(verdictOf(countedFailure(test, failure)).verdict).not.toBe('PASS');
  });

  it('a pass is a pass either way; a stop still stops an advisory gate (the run says nothing about the tree)', () => {
    expect(countedFailure(lint, null)).toBeNull();
    const stopped = classify(lint, { kind: 'stopped', seconds: 1, exit: { code: null, signal: 'SIGTERM' } });
    expect(countedFailure(lint, stopped)).toEqual({ kind: 'stopped', gate: 'lint' });
  });

  it('advisory: false, or absent, counts; the key leaves the gates hash of a policy without it unchanged', () => {
    const plain = gateSchema.parse({ name: 'test', run: 'npm test', advisory: false });
    const failure = classify(plain, { kind: 'exited', code: 1, seconds: 1 });
    expect(countedFailure(plain, failure)).toBe(failure);
    expect('advisory' in test).toBe(false);
  });
});

describe('advisoryFailures: what is reported as "advisory gate ... failed; not counted"', () => {
  it('lists the results of advisory gates that did not pass, in order', () => {
    const results = [
      { name: 'lint', outcome: 'exited' as const, status: 'exit 1', seconds: 1, advisory: true as const },
      { name: 'fmt', outcome: 'exited' as const, status: 'exit 0', seconds: 1, advisory: true as const },
      { name: 'test', outcome: 'exited' as const, status: 'exit 1', seconds: 1 },
      { name: 'slow', outcome: 'timeout' as const, status: 'timed out', seconds: 9, advisory: true as const },
    ];
    expect(advisoryFailures(results).map((r) => r.name)).toEqual(['lint', 'slow']);
  });
});
