// `land stats --since`: the period comes from readHistory's `since` (a store in a temporary folder,
// written through the store's own methods; no git), then computeStats counts what is in it.
import { afterAll, describe, expect, it } from 'vitest';
import { computeStats } from '../../lib/stats/figures.js';
import { writeFileSync } from 'node:fs';
import { readHistory } from '../../lib/stats/history.js';
import { localStore } from '../../lib/store/index.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';
import { T0, at, job, ran, train } from '../helpers/statsFixture.js';
import { appendJsonLine } from '../../lib/store/index.js';

afterAll(cleanupTempDirs);

describe('computeStats(readHistory(store, { since }))', () => {
  it('counts only the jobs, trains and window changes of the period; a job still queued counts whenever it was submitted', () => {
    const store = localStore(tempDir('land-stats-store-'));
    store.ensure();
    const jobs = [
      job(1, 0, { state: 'landed', at: 100 }),
      job(2, 10, { state: 'failed', at: 200, reason: 'gate' }),
      job(3, 5000, { state: 'landed', at: 5100 }),
      job(4, 20, { state: 'queued' }),
    ];
    for (const record of jobs) store.writeJob(record);
    const { time: _t1, ...old } = train('t1', 90, [1], {
      gateSeconds: 20,
      gate: { mode: 'full', executed: ['test'], results: ran(['test', 20]) },
      windowBefore: 8,
      windowAfter: 8,
    });
    const { time: _t2, ...late } = train('t2', 5090, [3], {
      gateSeconds: 9,
      gate: { mode: 'full', executed: ['test'], results: ran(['test', 9]) },
      windowBefore: 4,
      windowAfter: 8,
    });
    appendJsonLine(store.paths.metrics, old);
    appendJsonLine(store.paths.metrics, late);
    store.writeWindow({
      size: 8,
      history: [
        { at: at(60), event: 'set', before: 8, after: 4, train: null, by: 'ada@example.com' },
        { at: at(4000), event: 'reset', before: 4, after: 8, train: null, by: 'bob@example.com' },
      ],
    });
    // Read with the shape check (lib/store/jobShape.ts): a record without a state is corrupt; one
    // with a bad object id (the full schema's concern) still counts.
    writeFileSync(store.paths.job('j-5'), JSON.stringify({ ...job(5, 30, { state: 'landed', at: 40 }), state: undefined }));
    writeFileSync(store.paths.job('j-6'), JSON.stringify({ ...job(6, 30, { state: 'canceled', at: 40 }), tip: 'nope' }));
    const now = T0 + 6000 * 1000;
    const all = computeStats(readHistory(store, { now }));
    expect(all.jobs).toMatchObject({ total: 5, landed: 2, failed: 1, queued: 1, canceled: 1, corrupt: 1 });
    expect(all.trains.total).toBe(2);
    expect(all.window).toMatchObject({ sets: 1, resets: 1 });

    const since = T0 + 3000 * 1000;
    const period = computeStats(readHistory(store, { since, now }));
    expect(period.period).toEqual({ since: at(3000), until: at(6000) });
    expect(period.jobs).toMatchObject({ total: 2, landed: 1, failed: 0, queued: 1, corrupt: 1 });
    expect(period.trains.total).toBe(1);
    expect(period.gates).toEqual([
      {
        name: 'test',
        runs: 1,
        trains: 1,
        flakes: 0,
        confirmed: 0,
        flakeRate: 0,
        advisory: false,
        uncounted: 0,
        seconds: { count: 1, sum: 9, median: 9, p90: 9 },
      },
    ]);
    expect(period.time.timeToLand).toEqual({ count: 1, sum: 100, median: 100, p90: 100 });
    expect(period.window).toMatchObject({ sets: 0, resets: 1, sizes: [4, 8, 8], now: 8 });
  });

  it('a corrupt window.json and unreadable metrics lines are left out and said; the other figures stand', () => {
    const store = localStore(tempDir('land-stats-store-'));
    store.ensure();
    store.writeJob(job(1, 0, { state: 'landed', at: 100 }));
    const { time: _t, ...row } = train('t1', 90, [1], { gateSeconds: 20, gate: { mode: 'full', executed: ['test'], results: ran(['test', 20]) } });
    appendJsonLine(store.paths.metrics, row);
    appendJsonLine(store.paths.metrics, { train: 7, members: 'nope', verdict: 'PASS', at: at(95) });
    appendJsonLine(store.paths.metrics, { ...row, train: 't2', at: 'not a time' });
    writeFileSync(store.paths.window, '{"size": "eight"');
    const history = readHistory(store, { now: T0 + 6000 * 1000 });
    expect(history.problems).toHaveLength(1);
    expect(history.problems[0]).toMatch(/^window\.json is corrupt: .*left out/);
    expect(history.window).toEqual([]);
    expect(history.unreadableTrains).toBe(2);
    const stats = computeStats(history);
    expect(stats.jobs).toMatchObject({ total: 1, landed: 1 });
    expect(stats.trains.total).toBe(1);
    expect(stats.trains.unreadable).toBe(2);
  });
});
