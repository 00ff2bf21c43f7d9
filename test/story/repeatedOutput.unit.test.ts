// One excerpt per distinct output in `land why` (lib/story/repeatedOutput.ts).
import { describe, expect, it } from 'vitest';
import { comparable, markRepeatedOutput } from '../../lib/story/repeatedOutput.js';
import type { StoryEvent } from '../../lib/story/types.js';

function verdict(train: string, output: string[] | null, gate = 'test'): StoryEvent & { kind: 'verdict' } {
  return {
    kind: 'verdict',
    at: null,
    train,
    verdict: 'FAIL',
    reason: 'gate',
    cached: false,
    cachedFrom: null,
    gateSeconds: null,
    gates: [],
    failing: { name: gate, status: 'exit 1', seconds: 1 },
    log: null,
    logTrain: train,
    output,
  };
}

describe('markRepeatedOutput', () => {
  it('the first verdict of an output names the trains that repeat it; they name it; other outputs and gates stay apart', () => {
    const a = verdict('t-1', ['not ok 3 - subtracts', '# fail 1']);
    const b = verdict('t-2', ['not ok 3 - subtracts', '# fail 1']);
    const other = verdict('t-3', ['not ok 4 - divides', '# fail 1']);
    const otherGate = verdict('t-4', ['not ok 3 - subtracts', '# fail 1'], 'lint');
    const c = verdict('t-5', ['not ok 3 - subtracts', '# fail 1']);
    const unread = verdict('t-6', null);
    const empty = verdict('t-7', []);
    const events: StoryEvent[] = [a, { kind: 'note', at: null, event: 'x', text: 'x' }, b, other, otherGate, c, unread, empty];
    markRepeatedOutput(events);
    expect(a.sameOutputIn).toEqual(['t-2', 't-5']);
    expect(a.sameOutputAs).toBeUndefined();
    expect([b.sameOutputAs, c.sameOutputAs]).toEqual(['t-1', 't-1']);
    for (const alone of [other, otherGate, unread, empty]) {
      expect(alone.sameOutputAs).toBeUndefined();
      expect(alone.sameOutputIn).toBeUndefined();
    }
  });

  it('sets aside train ids and timings, not the values a failure prints', () => {
    const run = (train: string, ms: string, actual: number) =>
      verdict(train, [
        'not ok 3 - subtracts',
        `  duration_ms: ${ms}`,
        `  location: '/repo/.git/land/trains/${train}/t.test.mjs:5:1'`,
        `    1 !== ${actual}`,
        `# duration_ms ${ms}`,
      ]);
    const a = run('b-20261202-002607-6f4e40-1', '1.291808', 2);
    const b = run('b-20261202-002607-6f4e40-2', '5.305567', 2);
    const c = run('b-20261202-002607-6f4e40-4', '0.4', 3);
    markRepeatedOutput([a, b, c]);
    expect(b.sameOutputAs).toBe(a.train);
    expect(c.sameOutputAs).toBeUndefined();
    expect(comparable('    ✕ subtracts (3 ms)')).toBe('    ✕ subtracts (<time>)');
    expect(comparable('1 failed, 39 passed in 0.42s')).toBe('1 failed, 39 passed in <time>s');
    expect(comparable('    1 !== 2')).toBe('    1 !== 2');
  });
});
