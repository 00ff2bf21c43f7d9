// Down-marking: how long an executor that failed stays out, and when it is tried again.
import { describe, expect, it } from 'vitest';
import { ALL_UP, DOWN_FIRST_MS, DOWN_MAX_MS, downFor, markDown, markUp, offered } from '../../../lib/landing/executors/health.js';

describe('executor health', () => {
  it('keeps a failed executor out 30 s, doubled for each failure in a row, at most 10 min', () => {
    expect([1, 2, 3, 5, 6, 20].map(downFor)).toEqual([30_000, 60_000, 120_000, 480_000, DOWN_MAX_MS, DOWN_MAX_MS]);
    let health = markDown(ALL_UP, 'ssh://b1', 1_000, 'connection refused');
    expect(health.get('ssh://b1')).toEqual({ since: 1_000, reason: 'connection refused', failures: 1, until: 1_000 + DOWN_FIRST_MS });
    expect(offered(health, 'ssh://b1', 1_000 + DOWN_FIRST_MS - 1)).toBe(false);
    expect(offered(health, 'ssh://b2', 1_000)).toBe(true);
    // Tried again when its time is up; a second failure keeps it out twice as long, since the first.
    expect(offered(health, 'ssh://b1', 1_000 + DOWN_FIRST_MS)).toBe(true);
    health = markDown(health, 'ssh://b1', 40_000, 'connection lost');
    expect(health.get('ssh://b1')).toEqual({ since: 1_000, reason: 'connection lost', failures: 2, until: 40_000 + 2 * DOWN_FIRST_MS });
    // A run that reaches it marks it up: the next failure starts over at 30 s.
    health = markUp(health, 'ssh://b1');
    expect(offered(health, 'ssh://b1', 40_000)).toBe(true);
    expect(markDown(health, 'ssh://b1', 50_000, 'x').get('ssh://b1')?.failures).toBe(1);
    expect(markUp(ALL_UP, 'ssh://b1')).toBe(ALL_UP);
  });

  it('never changes the value it was given', () => {
    const before = markDown(ALL_UP, 'a', 0, 'x');
    markDown(before, 'a', 10, 'y');
    markUp(before, 'a');
    expect(before.get('a')?.failures).toBe(1);
    expect(ALL_UP.size).toBe(0);
  });
});
