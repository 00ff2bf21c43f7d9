import { describe, expect, it } from 'vitest';
import { parseCounts } from '../../lib/ledger/index.js';

describe('parseCounts', () => {
  it('reads every accepted form, summing counts and timings per name', () => {
    const counts = parseCounts([
      'timing: compile 1.5s',
      '[worker 2] timing: compile 0.5s',
      'timing: score 0.25 s',
      '3/4 candidates compiled',
      '1/1 candidate compiled',
      '0 / 2 candidate(s) compiled',
      'received 4',
      'received: 2 responses',
      '1200 completion tokens',
      'scored 5',
      'scored: 1',
      'best 0.5',
      'best: 0.875',
    ]);
    expect(counts).toEqual({
      timings: { compile: 2, score: 0.25 },
      timingSeconds: 2.25,
      compiled: 4,
      candidates: 7,
      received: 6,
      completionTokens: 1200,
      scored: 6,
      best: 0.875,
    });
  });

  it('leaves a count that never appears null, so "none reported" differs from zero', () => {
    expect(parseCounts(['hello', 'received 0'])).toMatchObject({ received: 0, scored: null, best: null, timingSeconds: null, timings: {} });
  });

  it('keeps a non-numeric best after "best:" and ignores "best" used as a word', () => {
    expect(parseCounts(['best: candidate-7']).best).toBe('candidate-7');
    expect(parseCounts(['the best effort', 'bestow 3', 'rebest: x']).best).toBeNull();
    expect(parseCounts(['best -1.5e3']).best).toBe(-1500);
  });

  it('does not read look-alikes', () => {
    const counts = parseCounts(['unreceived 3', 'timing: compile fast', 'prescored 2', '3/4 candidates failed']);
    expect(counts).toMatchObject({ received: null, timingSeconds: null, scored: null, compiled: null });
  });

  it('a timing named __proto__ stays a plain key', () => {
    const counts = parseCounts(['timing: __proto__ 1s']);
    expect(Object.keys(counts.timings)).toEqual(['__proto__']);
    expect(JSON.parse(JSON.stringify(counts)).timings.__proto__).toBe(1);
  });
});
