import { describe, expect, it } from 'vitest';
import { clampWindow, culpritRate, initialWindow, tallyOf, rateWindow, windowFor, type CulpritTally } from '../../../lib/landing/plan/windowPlan.js';
import type { WindowHistoryEntry } from '../../../lib/store/index.js';

describe('clampWindow', () => {
  it('keeps the size within 1..batch.max', () => {
    expect(clampWindow(3, 8)).toBe(3);
    expect(clampWindow(20, 8)).toBe(8);
    expect(clampWindow(0, 8)).toBe(1);
    expect(clampWindow(-5, 8)).toBe(1);
    expect(clampWindow(3.9, 8)).toBe(3);
    expect(clampWindow(5, 0)).toBe(1);
    expect(clampWindow(5, 4.5)).toBe(4);
  });
});

describe('initialWindow', () => {
  it('starts at batch.max, at least 1', () => {
    expect(initialWindow(8)).toBe(8);
    expect(initialWindow(1)).toBe(1);
    expect(initialWindow(0)).toBe(1);
  });
});

describe('rateWindow', () => {
  it('is 2^floor(log2((1-q)/q x 4/3)) from odds 6, 4 above odds 4.5, pairs from odds 1.5, within batch.max', () => {
    expect(rateWindow(0.01, 8)).toBe(8);
    expect(rateWindow(0.01, 256)).toBe(128);
    expect(rateWindow(0.05, 256)).toBe(16);
    expect(rateWindow(0.1, 8)).toBe(8);
    expect(rateWindow(0.14, 8)).toBe(8);
    expect(rateWindow(0.15, 8)).toBe(4);
    expect(rateWindow(0.18, 8)).toBe(4);
    expect(rateWindow(0.19, 8)).toBe(2);
    expect(rateWindow(0.2, 8)).toBe(2);
    expect(rateWindow(0.15, 3)).toBe(3);
    expect(rateWindow(0.3, 8)).toBe(2);
    expect(rateWindow(0.3, 1)).toBe(1);
  });

  it('keeps pairs up to a rate of 0.4 and goes serial only above it', () => {
    expect(rateWindow(0.35, 8)).toBe(2);
    expect(rateWindow(0.39, 8)).toBe(2);
    expect(rateWindow(0.41, 8)).toBe(1);
    expect(rateWindow(0.9, 8)).toBe(1);
  });

  it('is batch.max with no rate', () => {
    expect(rateWindow(null, 8)).toBe(8);
    expect(rateWindow(0, 16)).toBe(16);
  });
});

describe('culpritRate and windowFor', () => {
  it('has no rate until a culprit is recorded: the window stays at batch.max', () => {
    expect(culpritRate({ jobs: 0, culprits: 0 })).toBeNull();
    expect(culpritRate({ jobs: 1, culprits: 0 })).toBeNull();
    expect(windowFor({ jobs: 1, culprits: 0 }, 8)).toBe(8);
  });

  it('adds one culprit in seven jobs to what is recorded', () => {
    expect(culpritRate({ jobs: 1, culprits: 1 })).toBe(2 / 8);
    expect(culpritRate({ jobs: 57, culprits: 1 })).toBe(2 / 64);
  });

  it('one culprit among many landings keeps the window at 8; a run of culprits brings it to 2, not to 1', () => {
    expect(windowFor({ jobs: 16, culprits: 1 }, 8)).toBe(8); // 2/23
    expect(windowFor({ jobs: 8, culprits: 1 }, 8)).toBe(8); // 2/15
    expect(windowFor({ jobs: 10, culprits: 2 }, 8)).toBe(4); // 3/17
    expect(windowFor({ jobs: 10, culprits: 3 }, 8)).toBe(2); // 4/17
    expect(windowFor({ jobs: 4, culprits: 4 }, 8)).toBe(1); // 5/11
    expect(windowFor({ jobs: 30, culprits: 9 }, 8)).toBe(2); // 10/37
  });
});

describe('tallyOf', () => {
  const entry = (event: WindowHistoryEntry['event'], judged?: CulpritTally): WindowHistoryEntry => ({
    at: '2026-11-30T12:00:00.000Z',
    event,
    before: 4,
    after: 4,
    train: null,
    ...(judged ? { jobs: judged.jobs, culprits: judged.culprits } : {}),
  });

  it('sums what the trains decided since the last reset; entries without counts add nothing', () => {
    const history = [
      entry('PASS', { jobs: 8, culprits: 0 }),
      entry('reset'),
      entry('PASS', { jobs: 2, culprits: 0 }),
      entry('PASS'),
      entry('set'),
      entry('FAIL', { jobs: 1, culprits: 1 }),
    ];
    expect(tallyOf(history)).toEqual({ jobs: 3, culprits: 1 });
    expect(tallyOf([])).toEqual({ jobs: 0, culprits: 0 });
  });
});
