import { describe, expect, it } from 'vitest';
import {
  addTally,
  clampWindow,
  culpritRate,
  EMPTY_TALLY,
  expectedRate,
  initialWindow,
  RATE_DECAY,
  rateWindow,
  tallyOf,
  windowFor,
  type CulpritTally,
} from '../../../lib/landing/plan/windowPlan.js';
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
  it('is round(1.3 x (1-q)/q) from odds 4.5, pairs from odds 1.5, within batch.max', () => {
    expect(rateWindow(0.01, 8)).toBe(8);
    expect(rateWindow(0.01, 256)).toBe(129);
    expect(rateWindow(0.05, 256)).toBe(25);
    expect(rateWindow(0.1, 8)).toBe(8);
    expect(rateWindow(0.14, 8)).toBe(8);
    expect(rateWindow(0.15, 8)).toBe(7);
    expect(rateWindow(0.18, 8)).toBe(6);
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

  it('forgets a culprit for good once the clean jobs after it faded it away: the window is batch.max again', () => {
    let tally = addTally({ jobs: 0, culprits: 0 }, { jobs: 1, culprits: 1 });
    for (let i = 0; i < 4000; i += 1) tally = addTally(tally, { jobs: 1, culprits: 0 });
    expect(culpritRate(tally)).toBeNull();
    expect(windowFor(tally, 128)).toBe(128);
    // Not after a few dozen: the burst is still remembered.
    let recent = addTally({ jobs: 0, culprits: 0 }, { jobs: 1, culprits: 1 });
    for (let i = 0; i < 30; i += 1) recent = addTally(recent, { jobs: 1, culprits: 0 });
    expect(culpritRate(recent)).not.toBeNull();
  });

  it('adds one culprit in seven jobs to what is recorded', () => {
    expect(culpritRate({ jobs: 1, culprits: 1 })).toBe(2 / 8);
    expect(culpritRate({ jobs: 57, culprits: 1 })).toBe(2 / 64);
  });

  it('one culprit among many landings keeps the window at 8; a run of culprits brings it to 2, not to 1', () => {
    expect(windowFor({ jobs: 16, culprits: 1 }, 8)).toBe(8); // 2/23
    expect(windowFor({ jobs: 8, culprits: 1 }, 8)).toBe(8); // 2/15
    expect(windowFor({ jobs: 10, culprits: 2 }, 8)).toBe(6); // 3/17
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
    // The 2 landed jobs fade by RATE_DECAY once the next job is decided.
    expect(tallyOf(history)).toEqual({ jobs: 2 * RATE_DECAY + 1, culprits: 1 });
    expect(tallyOf([])).toEqual({ jobs: 0, culprits: 0 });
  });
});

describe('addTally: recent jobs weigh more (culprits cluster)', () => {
  it('fades what was recorded by RATE_DECAY per job decided since', () => {
    expect(addTally({ jobs: 10, culprits: 3 }, { jobs: 8, culprits: 0 })).toEqual({ jobs: 10 * RATE_DECAY ** 8 + 8, culprits: 3 * RATE_DECAY ** 8 });
    expect(addTally(EMPTY_TALLY, { jobs: 1, culprits: 1 })).toEqual({ jobs: 1, culprits: 1 });
  });

  it('after a burst of culprits, clean landings bring the window back sooner than a plain sum would', () => {
    const burst: CulpritTally[] = [{ jobs: 8, culprits: 0 }, ...Array.from({ length: 3 }, () => ({ jobs: 1, culprits: 1 }))];
    const sum = (a: CulpritTally, b: CulpritTally) => ({ jobs: a.jobs + b.jobs, culprits: a.culprits + b.culprits });
    let faded = EMPTY_TALLY;
    let plain = EMPTY_TALLY;
    for (const step of burst) [faded, plain] = [addTally(faded, step), sum(plain, step)];
    expect(windowFor(faded, 8)).toBe(2);
    let cleanFaded = 0;
    while (windowFor(faded, 8) < 8) [faded, cleanFaded] = [addTally(faded, { jobs: 2, culprits: 0 }), cleanFaded + 2];
    let cleanPlain = 0;
    while (windowFor(plain, 8) < 8) [plain, cleanPlain] = [sum(plain, { jobs: 2, culprits: 0 }), cleanPlain + 2];
    expect(cleanFaded).toBeLessThan(cleanPlain);
  });

  it('expectedRate is the prior alone before anything is decided, lower after clean landings', () => {
    expect(expectedRate(EMPTY_TALLY)).toBe(1 / 7);
    expect(expectedRate({ jobs: 16, culprits: 0 })).toBe(1 / 23);
  });
});
