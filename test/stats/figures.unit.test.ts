// computeStats on a synthetic History (test/helpers/statsFixture.ts): every figure of `land stats`, pure.
import { describe, expect, it } from 'vitest';
import { computeStats } from '../../lib/stats/figures.js';
import { abandonedTrains } from '../../lib/stats/history.js';
import { distribution, percentile } from '../../lib/stats/percentile.js';
import { humanDuration, statsText } from '../../lib/stats/statsText.js';
import { T0, at, history, job, ran, sampleHistory, train } from '../helpers/statsFixture.js';

describe('percentile (nearest rank)', () => {
  it('gives an observed value: rank ceil(p/100 x n)', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([5], 90)).toBe(5);
    expect(percentile([4, 1, 3, 2], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90)).toBe(9);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 90)).toBe(10);
    expect(percentile([3, 1, 2], 0)).toBe(1);
    expect(percentile([3, 1, 2], 100)).toBe(3);
    expect(distribution([10, 60, 90, 100, 100, 200, 300])).toEqual({ count: 7, sum: 860, median: 100, p90: 300 });
  });
});

describe('computeStats', () => {
  const stats = computeStats(sampleHistory());

  it('counts jobs by state, failures by reason and fast-path landings', () => {
    expect(stats.empty).toBe(false);
    expect(stats.jobs).toEqual({
      ...{ total: 12, landed: 7, failed: 2, canceled: 1, queued: 1, riding: 1, uncertain: 0, corrupt: 0 },
      ...{ failedByReason: { conflict: 1, gate: 1 }, landedFastPath: 1 },
    });
  });

  it('counts gate runs: a cached verdict costs none, a flaky re-run one more', () => {
    // t1 t2 t4 t7 t8 one each, t6 two (its runs), t3 and t5 none (cached).
    expect(stats.gateRuns).toEqual({ total: 7, perLandedJob: 1 });
  });

  it('counts trains by outcome', () => {
    expect(stats.trains).toEqual({
      ...{ total: 8, pass: 6, fail: 2, infra: 0, landed: 5, bisected: 1, cached: 2, fastPath: 1, flaky: 1, abandoned: 1 },
      ...{ abandonedByReason: { speculation_abandoned: 1 }, notLandedByReason: { gate: 2, cas_lost: 1 }, unreadable: 0 },
    });
  });

  it('measures time to land from the submission, split into waiting and gating', () => {
    // Landed: j1 100 s (gating t1 20), j2 90 (t1 20), j4 300 (t2 30 + t4 25), j9 10 (cached: 0),
    // j10 200 (t6 27), j11 100 (t7 5 + t8 5), j12 60 (no row: 0).
    expect(stats.time.timeToLand).toEqual({ count: 7, sum: 860, median: 100, p90: 300 });
    expect(stats.time.gating).toEqual({ count: 7, sum: 132, median: 20, p90: 55 });
    expect(stats.time.waiting).toEqual({ count: 7, sum: 728, median: 80, p90: 245 });
    expect(stats.time.gatingShare).toBe(0.1535);
  });

  it('counts a reopened job from its reopening, and only the trains since then', () => {
    const reopened = job(1, 0, { state: 'landed', at: 500 }, {});
    reopened.timestamps.reopened = at(400);
    const rows = [train('old', 100, [1], { landed: false, verdict: 'FAIL', reason: 'gate', gateSeconds: 50 }), train('new', 450, [1], { gateSeconds: 30 })];
    const s = computeStats(history({ jobs: [reopened], trains: rows }));
    expect(s.time.timeToLand.median).toBe(100);
    expect(s.time.gating.median).toBe(30);
    expect(s.time.waiting.median).toBe(70);
  });

  it('computes the observed culprit rate: failed alone by a gate over landed plus culprits', () => {
    expect(stats.culprits).toEqual({ culprits: 1, decided: 8, rate: 0.125 });
  });

  it('gives each gate its runs, durations and flakes (rows and records, each flaky train once)', () => {
    expect(stats.gates).toEqual([
      // The runs of tz, known only from j12's record, count (2 each); their times are the rows' only.
      {
        name: 'lint',
        runs: 9,
        trains: 6,
        flakes: 0,
        confirmed: 0,
        flakeRate: 0,
        advisory: false,
        uncounted: 0,
        seconds: { count: 7, sum: 14, median: 2, p90: 3 },
      },
      // t6 flaked (its row's runs; j10's record names the same train), tz flaked on another drainer: 2 of 9 runs.
      {
        name: 'test',
        runs: 9,
        trains: 7,
        flakes: 2,
        confirmed: 0,
        flakeRate: 0.2222,
        advisory: false,
        uncounted: 0,
        seconds: { count: 7, sum: 98, median: 12, p90: 28 },
      },
    ]);
  });

  it('shows an advisory gate and its failures, not counted in its flakes: in the figures and in the text', () => {
    const lint = (status: string) => ({ name: 'lint', outcome: 'exited', status, seconds: 1, advisory: true });
    const rows = [1, 2].map((n) =>
      train(`ta${n}`, n * 10, [n], { tree: 'e'.repeat(40), gate: { mode: 'full', results: [lint('exit 1'), ...ran(['test', 2])] } }),
    );
    const s = computeStats(history({ trains: rows }));
    expect(s.gates[0]).toMatchObject({ name: 'lint', runs: 2, flakes: 0, confirmed: 0, flakeRate: 0, advisory: true, uncounted: 2 });
    expect(s.gates[1]).toMatchObject({ name: 'test', advisory: false, uncounted: 0 });
    expect(statsText(s)).toMatch(/lint +2 +1s +1s +0 \(rate 0\); 2 advisory failures not counted$/m);
  });

  it("draws the window's history from the rows and the sets and resets of window.json", () => {
    expect(stats.window.sizes).toEqual([8, 8, 8, 4, 4, 4, 8, 2, 2, 4]);
    expect(stats.window).toMatchObject({ now: 4, min: 2, max: 8, sets: 1, resets: 0, clamps: 0 });
    expect(stats.window.changes.map((c) => [c.event, c.before, c.after, c.train ?? c.by])).toEqual([
      ['FAIL', 8, 4, 't3'],
      ['PASS', 4, 8, 't6'],
      ['set', 8, 2, 'ada@example.com'],
      ['PASS', 2, 4, 't8'],
    ]);
  });

  it('counts a void run (VOID row) in gate runs, gate times and abandoned trains, never as a judged train', () => {
    const voided = train('tv', 5, [1], {
      verdict: 'VOID',
      reason: 'withdrawn',
      landed: false,
      gateSeconds: 4,
      gate: { mode: 'full', results: ran(['test', 4]) },
    });
    const judged = train('tp', 9, [1], { gateSeconds: 2, gate: { mode: 'full', results: ran(['test', 2]) } });
    const fromJournal = { train: 'tv', at: T0 + 5000, members: ['j-1'], reason: 'speculation_abandoned' };
    const h = history({ trains: [judged], voided: [voided], abandoned: abandonedTrains([voided], [fromJournal]) });
    const s = computeStats(h);
    expect(s.gateRuns.total).toBe(2);
    expect(s.trains).toMatchObject({ total: 1, pass: 1, abandoned: 1, abandonedByReason: { withdrawn: 1 }, notLandedByReason: {} });
    expect(s.gates).toMatchObject([{ name: 'test', runs: 2 }]);
    expect(s.window.sizes).toEqual([]);
  });

  it("uses window.json's own entries when no row records a window (another clone's drains)", () => {
    const entries = [
      { at: at(10), event: 'PASS' as const, before: 8, after: 8, train: 'a' },
      { at: at(20), event: 'FAIL' as const, before: 8, after: 2, train: 'b' },
    ];
    const s = computeStats(history({ window: entries, windowNow: 2 }));
    expect(s.window.sizes).toEqual([8, 8, 2]);
    expect(statsText(computeStats(history({ window: entries, windowNow: 2, windowFrom: 'drainer' })))).toContain("now 2 (the drainer's, after its last train)");
    expect(s.empty).toBe(false);
  });

  it("says the window now is the one after the latest train when this clone has no window.json (a remote queue's developer clone), never 'never set'", () => {
    const s = computeStats({ ...sampleHistory(), window: [], windowNow: null });
    expect(s.window.sizes.length).toBeGreaterThan(1);
    expect(s.window.now).toBe(s.window.sizes.at(-1));
    expect(statsText(s)).toContain(`window        now ${s.window.now}; between`);
  });

  it('says there is no history, with zero counts, for an empty one', () => {
    const s = computeStats(history());
    expect(s.empty).toBe(true);
    expect(s.jobs.total).toBe(0);
    expect(s.gateRuns).toEqual({ total: 0, perLandedJob: null });
    expect(s.time.timeToLand).toEqual({ count: 0, sum: 0, median: null, p90: null });
    expect(s.culprits.rate).toBeNull();
    expect(s.gates).toEqual([]);
    expect(s.window).toMatchObject({ now: null, sizes: [], min: null, max: null });
    expect(statsText(s)).toBe('no history yet: jobs submitted with `land submit` and drained by `land run` make it');
    expect(statsText(computeStats(history({ since: T0 })))).toMatch(/^no history since 2026-11-30T10:00:00.000Z: /);
  });

  it('reads a row without gate results as one run, and a cached or gate-less one as none', () => {
    const rows = [
      train('old', 10, [1], { gate: undefined }),
      train('none', 20, [2], { gate: { mode: 'full', executed: [], results: [] }, verdict: 'FAIL', reason: 'refresh', landed: false }),
      train('infra', 30, [3], {
        verdict: 'INFRA',
        reason: 'spawn_failed',
        landed: false,
        gate: { mode: 'full', executed: ['x'], results: ran(['x', 0, 'could not start']) },
      }),
    ];
    const s = computeStats(history({ trains: rows }));
    expect(s.gateRuns.total).toBe(2);
    expect(s.trains).toMatchObject({ infra: 1, fail: 1, pass: 1, notLandedByReason: { refresh: 1, spawn_failed: 1 } });
  });
});

describe('the text', () => {
  it('prints durations as a person reads them', () => {
    expect(humanDuration(0.04)).toBe('0.04s');
    expect(humanDuration(4.25)).toBe('4.3s');
    expect(humanDuration(45)).toBe('45s');
    expect(humanDuration(80)).toBe('1m 20s');
    expect(humanDuration(7500)).toBe('2h 05m');
    expect(humanDuration(2 * 86_400 + 4 * 3600)).toBe('2d 4h');
  });

  it('prints every figure on short aligned lines', () => {
    const text = statsText(computeStats(sampleHistory()));
    const lines = text.split('\n');
    expect(lines[0]).toBe('land stats: everything recorded, until 2026-11-30T11:00:00Z');
    expect(text).toContain('jobs          7 landed, 2 failed, 1 canceled; now 1 queued, 1 riding');
    expect(text).toContain('              failed by reason: conflict 1, gate 1');
    expect(text).toContain('gate runs     7 (1.00 per landed job)');
    expect(text).toContain('trains        8: 6 PASS, 2 FAIL; 5 landed');
    expect(text).toContain('1 bisected, 2 cached, 1 fast path, 1 flaky, 1 abandoned');
    expect(text).toContain('not landed by reason: gate 2, cas_lost 1');
    expect(text).toContain('time to land  median 1m 40s, p90 5m 00s (7 landed)');
    expect(text).toContain('  waiting     median 1m 20s, p90 4m 05s');
    expect(text).toContain('  gating      median 20s, p90 55s; gating is 15.4% of the time to land');
    expect(text).toContain('culprits      1 of 8 decided jobs (12.5%)');
    expect(text).toContain('gates         gate  runs  median  p90  flaky');
    expect(text).toContain('              test     9     12s  28s  2 (rate 0.2222)');
    expect(text).toContain('window        now 4; between 2 and 8 over 8 train(s) (1 set, 0 reset)');
    expect(text).toContain('              lint     9      2s   3s  0 (rate 0)');
    // One bar per size (8 8 8 4 4 4 8 2 2 4), proportional to the largest.
    expect(lines.at(-1)).toBe('              ███▄▄▄█▂▂▄');
    expect(lines.every((l) => l.length <= 80)).toBe(true);
  });
});
