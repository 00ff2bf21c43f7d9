// The window plan: pure functions, replayed without a repository.
import { describe, expect, it } from 'vitest';
import { clampWindow, initialWindow, nextWindow, type WindowEvent } from '../../lib/landing/plan/windowPlan.js';

describe('clampWindow', () => {
  it('keeps the size between 1 and batch.max, in whole jobs', () => {
    expect(clampWindow(3, 8)).toBe(3);
    expect(clampWindow(20, 8)).toBe(8);
    expect(clampWindow(0, 8)).toBe(1);
    expect(clampWindow(-5, 8)).toBe(1);
    expect(clampWindow(3.9, 8)).toBe(3);
    expect(clampWindow(5, 0)).toBe(1);
    expect(clampWindow(5, 4.5)).toBe(4);
  });
});

describe('nextWindow', () => {
  it('grows by one after a PASS, up to batch.max', () => {
    expect(nextWindow(3, 'PASS', 8)).toBe(4);
    expect(nextWindow(8, 'PASS', 8)).toBe(8);
    expect(nextWindow(12, 'PASS', 8)).toBe(8);
    expect(nextWindow(1, 'PASS', 1)).toBe(1);
  });

  it('halves after a FAIL, rounding down, never below 1', () => {
    expect(nextWindow(8, 'FAIL', 8)).toBe(4);
    expect(nextWindow(5, 'FAIL', 8)).toBe(2);
    expect(nextWindow(1, 'FAIL', 8)).toBe(1);
    expect(nextWindow(20, 'FAIL', 8)).toBe(4);
  });

  it('replays a sequence of verdicts', () => {
    const events: WindowEvent[] = ['FAIL', 'FAIL', 'PASS', 'PASS', 'FAIL', 'PASS', 'PASS', 'PASS', 'PASS', 'PASS', 'PASS'];
    const sizes: number[] = [];
    let size = initialWindow(6);
    for (const event of events) sizes.push((size = nextWindow(size, event, 6)));
    expect(sizes).toEqual([3, 1, 2, 3, 1, 2, 3, 4, 5, 6, 6]);
  });
});

describe('initialWindow', () => {
  it('starts at batch.max, at least 1', () => {
    expect(initialWindow(8)).toBe(8);
    expect(initialWindow(1)).toBe(1);
    expect(initialWindow(0)).toBe(1);
  });
});
