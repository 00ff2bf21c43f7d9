// flakeTally on hand-made metrics rows (test/helpers/statsFixture.ts): each gate's runs, flakes,
// confirmed failures and estimated rate, and the evidence of its recent flaky trees. Pure.
import { describe, expect, it } from 'vitest';
import { flakeTally, gateEvidenceOf } from '../../lib/stats/flakeTally.js';
import { flakeModel } from '../../lib/tune/replayInput.js';
import { history } from '../helpers/tuneHistory.js';
import type { JobRecord } from '../../lib/store/index.js';
import { job, ran, train } from '../helpers/statsFixture.js';

const full = (results: ReturnType<typeof ran>) => ({ mode: 'full', executed: results.map((r) => r.name), results });
const tree = (n: number) => n.toString(16).padStart(40, 'a');

/** A row that ran the gates once on tree `t`. */
function once(id: string, time: number, t: number, results: ReturnType<typeof ran>, fields: Record<string, unknown> = {}) {
  const failed = results.some((r) => r.status !== 'exit 0');
  return train(id, time, [time], {
    tree: tree(t),
    log: `/logs/${id}.log`,
    gate: full(results),
    ...(failed ? { verdict: 'FAIL', reason: 'gate', landed: false } : {}),
    ...fields,
  });
}

const gateRun = (run: number, trainId: string, results: ReturnType<typeof ran>, cached = false) => {
  const failed = results.find((r) => r.status !== 'exit 0');
  return {
    ...{ run, train: trainId, cached, verdict: failed ? 'FAIL' : 'PASS', reason: failed ? 'gate' : null, gate: failed?.name ?? null },
    ...{ status: failed?.status ?? null, seconds: 1, log: `/logs/${trainId}.log`, results },
  };
};

describe('flakeTally', () => {
  it('a deterministic history: every run counted, no flake, rate 0; a failure seen once is not confirmed', () => {
    const tally = flakeTally([once('t1', 10, 1, ran(['lint', 1], ['test', 2])), once('t2', 20, 2, ran(['lint', 1], ['test', 2, 'exit 1']))]);
    expect([...tally.keys()]).toEqual(['lint', 'test']);
    expect(tally.get('test')).toEqual({
      gate: 'test',
      runs: 2,
      passed: 1,
      flakes: 0,
      flakyRuns: 0,
      confirmed: 0,
      cleared: 0,
      rate: 0,
      advisoryRuns: 0,
      uncounted: 0,
      recent: [],
    });
    expect(tally.get('lint')).toMatchObject({ runs: 2, passed: 2, flakes: 0, rate: 0 });
    // What the drain's flake estimate reads: clean runs and flakes.
    expect(gateEvidenceOf(tally)).toEqual(
      new Map([
        ['lint', { passed: 2, flakes: 0 }],
        ['test', { passed: 1, flakes: 0 }],
      ]),
    );
  });

  it('a flake within one row: a FAIL then a PASS among its runs, with the evidence (run numbers, trains, logs, statuses)', () => {
    const runs = [gateRun(1, 't1', ran(['test', 2, 'exit 1'])), gateRun(2, 't1', ran(['test', 2]))];
    const row = once('t1', 10, 1, ran(['test', 2]), { flaky: true, runs });
    const tally = flakeTally([row, once('t2', 20, 2, ran(['test', 2]))]);
    expect(tally.get('test')).toMatchObject({ runs: 3, passed: 2, flakes: 1, flakyRuns: 1, confirmed: 0, rate: 1 / 3 });
    expect(tally.get('test')?.recent).toEqual([
      {
        gate: 'test',
        tree: tree(1),
        jobs: ['j-10'],
        at: row.at,
        // Run 1's own time is not recorded (the row is written after run 2): null, not the row's.
        failed: [{ train: 't1', run: 1, log: '/logs/t1.log', status: 'exit 1', at: null }],
        passed: { train: 't1', run: 2, log: '/logs/t1.log', status: 'exit 0', at: row.at },
      },
    ]);
  });

  it('a tree that failed twice and then passed is one flake of two failed runs: the drain weighs both', () => {
    const runs = [gateRun(1, 't1', ran(['test', 2, 'exit 1'])), gateRun(2, 't1', ran(['test', 2, 'exit 1'])), gateRun(3, 't1', ran(['test', 2]))];
    const tally = flakeTally([once('t1', 10, 1, ran(['test', 2]), { flaky: true, runs })]);
    expect(tally.get('test')).toMatchObject({ runs: 3, passed: 1, flakes: 1, flakyRuns: 2 });
    expect(gateEvidenceOf(tally).get('test')).toEqual({ passed: 1, flakes: 2 });
  });

  it('a flake across rows: a FAIL row of a tree, then a later fresh PASS row of the same tree (rows in any order)', () => {
    const failed = once('b4-2', 10, 7, ran(['test', 2, 'exit 1']));
    const passedRow = once('b4-3', 20, 7, ran(['test', 2]));
    const tally = flakeTally([passedRow, failed]);
    const test = tally.get('test');
    expect(test).toMatchObject({ runs: 2, flakes: 1, confirmed: 0, rate: 0.5 });
    expect(test?.recent[0]).toMatchObject({
      tree: tree(7),
      at: passedRow.at,
      failed: [{ train: 'b4-2', run: null, log: '/logs/b4-2.log', at: failed.at }],
      passed: { train: 'b4-3', run: null, at: passedRow.at },
    });
    // A PASS before the FAIL is no flake: the later FAIL is the tree's last word (seen once).
    expect(flakeTally([once('p', 10, 8, ran(['test', 1])), once('f', 20, 8, ran(['test', 1, 'exit 1']))]).get('test')).toMatchObject({
      flakes: 0,
      confirmed: 0,
    });
  });

  it('a confirmed failure: two fresh FAILs of a tree and no PASS (a re-run, or two rows); timeouts count as failures', () => {
    const runs = [gateRun(1, 't1', ran(['test', 2, 'exit 1'])), gateRun(2, 't1', ran(['test', 2, 'exit 1']))];
    const rerun = once('t1', 10, 1, ran(['test', 2, 'exit 1']), { runs });
    const timedOut = { name: 'test', outcome: 'timeout', status: 'timed out', seconds: 9 };
    const twoRows = [once('t2', 20, 2, ran(['test', 2, 'exit 1'])), once('t3', 30, 2, [timedOut] as ReturnType<typeof ran>)];
    expect(flakeTally([rerun, ...twoRows]).get('test')).toMatchObject({ runs: 4, flakes: 0, confirmed: 2, rate: 0 });
    // A tree that passed once (before its failures) has no confirmed failure, and no flake either.
    const passedFirst = [once('p', 5, 1, ran(['test', 1])), rerun];
    expect(flakeTally(passedFirst).get('test')).toMatchObject({ runs: 3, flakes: 0, confirmed: 0 });
  });

  it('cached verdicts ran no gate: neither a run nor evidence (a cached FAIL then a PASS is no flake)', () => {
    const cachedRow = train('t2', 20, [2], { tree: tree(1), cached: true, verdict: 'FAIL', gate: { mode: 'cached', source: 'cache', executed: [] } });
    const runs = [gateRun(1, 't0', ran(['test', 2, 'exit 1']), true), gateRun(2, 't3', ran(['test', 2]))];
    const rerunOfCached = once('t3', 30, 5, ran(['test', 2]), { flaky: true, runs });
    const tally = flakeTally([cachedRow, rerunOfCached]);
    expect(tally.get('test')).toMatchObject({ runs: 1, flakes: 0, rate: 0 });
  });

  it("void rows' runs count, as runs and as evidence; a stopped gate or one that could not start is no evidence", () => {
    const stopped = { name: 'test', outcome: 'stopped', status: 'stopped', seconds: 1 };
    const voided = once('v1', 10, 3, ran(['test', 2, 'exit 1']), { verdict: 'VOID', reason: 'interrupted' });
    const stoppedRow = once('v2', 15, 3, [stopped] as ReturnType<typeof ran>, { verdict: 'VOID', reason: 'interrupted' });
    const passedRow = once('t1', 20, 3, ran(['test', 2]));
    expect(flakeTally([voided, stoppedRow, passedRow]).get('test')).toMatchObject({ runs: 3, flakes: 1, confirmed: 0, rate: 1 / 3 });
  });

  it('advisory failures are neither flakes nor confirmed failures: only uncounted, and the rate is over the counted runs', () => {
    const advisory = (results: ReturnType<typeof ran>) => results.map((r) => ({ ...r, advisory: true }));
    // e2e advisory, failing on every run, twice on the same tree (a re-run caused by a flaky test), then passing once.
    const runs = [gateRun(1, 't1', advisory(ran(['e2e', 1, 'exit 1']))), gateRun(2, 't1', advisory(ran(['e2e', 1, 'exit 1'])))];
    const twice = once('t1', 10, 1, advisory(ran(['e2e', 1, 'exit 1'])), { verdict: 'PASS', runs });
    const thenPassed = once('t2', 20, 1, advisory(ran(['e2e', 1])));
    expect(flakeTally([twice]).get('e2e')).toMatchObject({ runs: 2, flakes: 0, confirmed: 0, rate: 0, advisoryRuns: 2, uncounted: 2 });
    expect(flakeTally([twice, thenPassed]).get('e2e')).toMatchObject({ runs: 3, flakes: 0, confirmed: 0, advisoryRuns: 3, uncounted: 2, recent: [] });
    // Once the mark is off, its flakes count over the runs that counted: 1 flake in 2 counted runs, not in 5.
    const counted = [once('c1', 30, 2, ran(['e2e', 1, 'exit 1'])), once('c2', 40, 2, ran(['e2e', 1]))];
    expect(flakeTally([twice, thenPassed, ...counted]).get('e2e')).toMatchObject({ runs: 5, flakes: 1, rate: 0.5, advisoryRuns: 3, uncounted: 2 });
  });

  it('recent is newest first and capped at 10', () => {
    const rows = Array.from({ length: 12 }, (_, i) => [
      once(`f${i}`, 100 * i, 100 + i, ran(['lint', 1, 'exit 1'])),
      once(`p${i}`, 100 * i + 50, 100 + i, ran(['lint', 1])),
    ]).flat();
    const lint = flakeTally(rows).get('lint');
    expect(lint).toMatchObject({ runs: 24, flakes: 12, rate: 0.5, uncounted: 0 });
    expect(lint?.recent.map((r) => r.passed.train)).toEqual(['p11', 'p10', 'p9', 'p8', 'p7', 'p6', 'p5', 'p4', 'p3', 'p2', 'p1', 'p0'].slice(0, 10));
  });

  it("a job record's flake whose train no row names (another drainer's) counts once, its fresh runs too", () => {
    const runs = [gateRun(1, 'tz1', ran(['test', 2, 'exit 1'])), gateRun(2, 'tz2', ran(['test', 2]))];
    const flaky = { gate: 'test', tree: tree(9), train: 'tz', failed: runs[0], passed: runs[1] } as JobRecord['flaky'];
    const jobs = [job(1, 0, { state: 'landed', at: 10 }, { flaky }), job(2, 0, { state: 'landed', at: 10 }, { flaky })];
    expect(flakeTally([], jobs).get('test')).toMatchObject({ runs: 2, flakes: 1, rate: 0.5 });
    // No row, no time: the runs keep their numbers, their time is unknown.
    expect(flakeTally([], jobs).get('test')?.recent[0]).toMatchObject({ at: null, failed: [{ run: 1, at: null }], passed: { run: 2, at: null } });
    // Known from a row: the record adds nothing.
    const row = once('tz', 10, 9, ran(['test', 2]), { flaky: true, runs });
    expect(flakeTally([row], jobs).get('test')).toMatchObject({ runs: 2, flakes: 1 });
  });
});

describe('flakeModel (what `land tune` replays)', () => {
  it("is how often a good tree's run failed: per gate, flaky runs over those and clean runs; a train fails when any gate does", () => {
    expect(flakeModel(history([], [once('t0', 5, 9, ran(['test', 2]))]))).toEqual({ rate: 0, flakyRuns: 0, cleared: 0, passed: 1 });
    const runs = [gateRun(1, 't1', ran(['test', 2, 'exit 1'])), gateRun(2, 't1', ran(['test', 2]))];
    const flaky = once('t1', 10, 1, ran(['test', 2]), { flaky: true, runs });
    const lintRuns = [gateRun(1, 't3', ran(['lint', 1, 'exit 1'])), gateRun(2, 't3', ran(['lint', 1]))];
    const lint = once('t3', 30, 3, ran(['lint', 1]), { flaky: true, runs: lintRuns });
    // test: 1 flaky run, 2 clean; lint: 1 flaky run, 1 clean.
    const model = flakeModel(history([], [flaky, once('t2', 20, 2, ran(['test', 2])), lint]));
    expect(model).toMatchObject({ flakyRuns: 2, passed: 3 });
    expect(model.rate).toBeCloseTo(1 - (1 - 1 / 3) * (1 - 1 / 2), 4);
  });

  it("counts a train cleared by the train behind it (a VOID row, reason cleared) as a flake, as the drain's evidence does; never a confirmed failure", () => {
    const cleared = once('t1', 10, 1, ran(['test', 2, 'exit 1']), { verdict: 'VOID', reason: 'cleared' });
    const again = once('t1b', 11, 1, ran(['test', 2, 'exit 1']), { verdict: 'VOID', reason: 'cleared' });
    const rows = [cleared, again, once('t2', 20, 2, ran(['test', 2]))];
    const tally = flakeTally(rows);
    expect(tally.get('test')).toMatchObject({ runs: 3, passed: 1, flakes: 0, flakyRuns: 0, cleared: 2, confirmed: 0, rate: 0 });
    expect(gateEvidenceOf(tally).get('test')).toEqual({ passed: 1, flakes: 2 });
    // land tune reads the void rows too.
    const model = flakeModel({ ...history([], [rows[2] as (typeof rows)[number]]), voided: [cleared, again] });
    expect(model).toMatchObject({ flakyRuns: 0, cleared: 2, passed: 1 });
    expect(model.rate).toBeCloseTo(2 / 3, 4);
  });
});
