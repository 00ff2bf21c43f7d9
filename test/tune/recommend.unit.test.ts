// `land tune`'s input and advice on synthetic Histories (pure: no git, no files).
import { describe, expect, it } from 'vitest';
import { adviseClearing } from '../../lib/tune/clearingAdvice.js';
import { candidateGrid, tune } from '../../lib/tune/recommend.js';
import { ASSUMED_GATE_SECONDS, replayInput } from '../../lib/tune/replayInput.js';
import { history, job, queueHistory, train } from '../helpers/tuneHistory.js';

const CURRENT = { max: 8, waitSeconds: 0, parallel: 1 };

describe('replayInput', () => {
  it('replays landed jobs and culprits in submission order; leaves out canceled, otherwise failed and undecided jobs', () => {
    const jobs = [
      job(1, { at: 50, state: 'landed' }),
      job(2, { at: 10, state: 'failed', reason: 'gate' }),
      job(3, { at: 20, state: 'failed', reason: 'conflict' }),
      job(4, { at: 30, state: 'canceled' }),
      job(5, { at: 40, state: 'queued' }),
      job(6, { at: 60, state: 'failed', reason: 'timeout' }),
      job(7, { at: 70, state: 'failed', reason: 'policy_refused' }),
    ];
    const trains = [train(100), train(300), train(200), train(5, { cached: true }), train(7, { gate: { mode: 'none' } })];
    const input = replayInput(history(jobs, trains));
    expect(input.jobs).toEqual([
      { submitted: 0, culprit: true },
      { submitted: 40, culprit: false },
      { submitted: 50, culprit: true },
    ]);
    expect(input.ids).toEqual(['j-20261101-0002', 'j-20261101-0001', 'j-20261101-0006']);
    expect(input).toMatchObject({ landed: 1, culprits: 2, leftOut: { canceled: 1, otherFailures: 2, undecided: 1, noSubmitTime: 0 } });
    expect(input.gate).toEqual({ seconds: 200, source: 'recorded', trains: 3 });
    expect(replayInput(history(jobs)).gate).toEqual({ seconds: ASSUMED_GATE_SECONDS, source: 'assumed', trains: 0 });
  });
});

describe('tune', () => {
  it('recommends a smaller batch.max on a history with a high culprit rate than on one with none', () => {
    // 64 jobs, one a minute, gates of 5 minutes: a train of 5 keeps up when nothing fails.
    const none = tune(queueHistory(64, 0, { every: 60, gateSeconds: 300 }), CURRENT).recommendation;
    const high = tune(queueHistory(64, 0.3, { every: 60, gateSeconds: 300 }), CURRENT).recommendation;
    expect(none.setting).not.toBeNull();
    expect(high.setting).not.toBeNull();
    expect(high.setting?.max).toBeLessThan(none.setting?.max ?? 0);
    expect(high.reason).toMatch(/^batch\.max \d+ \(now 8\).*gate runs per landed job instead of .*time to land p50 .* instead of /);
  });

  it('says when the current setting is already the best', () => {
    const advice = tune(queueHistory(64, 0, { every: 60, gateSeconds: 300 }), CURRENT);
    expect(advice.recommendation).toMatchObject({ setting: CURRENT, keep: true });
    expect(advice.recommendation.reason).toMatch(/^the current setting is already the best replayed/);
    expect(advice.settings.filter((f) => f.current)).toHaveLength(1);
    expect(advice.settings).toHaveLength(candidateGrid(CURRENT).length);
  });

  it('adds the current values to the grid', () => {
    const grid = candidateGrid({ max: 5, waitSeconds: 45, parallel: 3 });
    expect(grid).toHaveLength(7 * 5 * 4);
    expect(grid).toContainEqual({ max: 5, waitSeconds: 45, parallel: 3 });
  });

  it('recommends nothing with too little history, and says there is none at all', () => {
    const little = tune(queueHistory(10, 0.1, { every: 60, gateSeconds: 300 }), CURRENT);
    expect(little.recommendation).toMatchObject({ setting: null, keep: false });
    expect(little.recommendation.reason).toMatch(/^too little history: 10 decided job\(s\)/);
    expect(little.settings.length).toBeGreaterThan(0);
    const nothing = tune(history([]), CURRENT);
    expect(nothing.settings).toEqual([]);
    expect(nothing.input).toMatchObject({ jobs: 0, landed: 0, culprits: 0, culpritRate: null, start: null });
    expect(nothing.recommendation.reason).toMatch(/^no history yet: /);
    const period = tune({ ...history([]), since: Date.parse('2026-11-20T00:00:00Z') }, CURRENT);
    expect(period.recommendation.reason).toBe('no history in this period: no job landed or failed as a culprit since 2026-11-20T00:00:00.000Z');
  });
});

describe('adviseClearing', () => {
  const evidence = { rule: 'evidence' as const, threshold: 0.99, history: { passed: 0, flakes: 0 } };
  /** 64 jobs, one a minute, gates of 5 minutes, culprits at rate p; good trees' runs fail at `flakeRate`. */
  const input = (p: number, flakeRate: number) => ({
    ...replayInput(queueHistory(64, p, { every: 60, gateSeconds: 300 })),
    flakes: { rate: flakeRate, flakyRuns: 0, cleared: 0, passed: 0 },
  });
  const parallel = { max: 1, waitSeconds: 0, parallel: 2 };

  it('says nothing without enough history; advises off at batch.parallel 1 and with no flake recorded, replaying nothing', () => {
    expect(adviseClearing(input(0.1, 0.1), parallel, evidence, { now: false, enough: false })).toMatchObject({ on: null, off: null });
    expect(adviseClearing(input(0.1, 0.1), { ...parallel, parallel: 1 }, evidence, { now: true, enough: true })).toMatchObject({
      on: false,
      now: true,
      off: null,
      reason: expect.stringMatching(/^it needs batch\.parallel 2 or more .* the setting to use has 1$/),
    });
    expect(adviseClearing(input(0.1, 0), parallel, evidence, { now: false, enough: true })).toMatchObject({
      on: false,
      reason: expect.stringMatching(/^no flake is recorded/),
    });
  });

  it('advises it on for a flaky gate at batch.parallel 2: it spends fewer runs per landed job, with the figures of both ways', () => {
    const advice = adviseClearing(input(0.1, 0.15), parallel, evidence, { now: false, enough: true });
    expect(advice.on).toBe(true);
    expect(advice.with?.cleared).toBeGreaterThan(0);
    expect(advice.with?.gateRunsPerLanded).toBeLessThan(advice.off?.gateRunsPerLanded ?? 0);
    expect(advice.reason).toMatch(
      /^turn it on: \d+\.\d\d gate runs per landed job instead of \d+\.\d\d, .* \(at the recorded flake rate 15\.0%, over 16 seeded replays\)$/,
    );
  });

  it('tune carries it, at the recommended setting, with the recorded flake rate in its input', () => {
    const advice = tune(queueHistory(64, 0.1, { every: 60, gateSeconds: 300 }), CURRENT, evidence, true);
    expect(advice.input).toMatchObject({ clearing: true, flakes: { rate: 0 } });
    expect(advice.clearing).toMatchObject({ now: true, on: false, setting: advice.recommendation.setting ?? CURRENT });
  });
});
