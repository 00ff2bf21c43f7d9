// `land flaky`'s report and text (lib/stats/flakyReport.ts) from a tally and the policy's advisory gates. Pure.
import { describe, expect, it } from 'vitest';
import type { FlakyTree, GateFlakes } from '../../lib/stats/flakeTally.js';
import { gateEvidenceOf } from '../../lib/stats/flakeTally.js';
import { flakyReport, flakyText } from '../../lib/stats/flakyReport.js';

const period = { since: null, until: '2026-12-02T05:00:00.000Z' };
const tree = (gate: string, n: number): FlakyTree => ({
  gate,
  tree: n.toString(16).padStart(40, '3'),
  jobs: [`j-${n}`],
  at: `2026-12-01T10:${String(n).padStart(2, '0')}:00.000Z`,
  failed: [{ train: `b${n}-2`, run: null, log: `/logs/b${n}-2.log`, status: 'exit 1', at: null }],
  passed: { train: `b${n}-3`, run: null, log: null, status: 'exit 0', at: null },
});
const flakes = (gate: string, runs: number, recent: FlakyTree[], confirmed = 0, uncounted = 0): [string, GateFlakes] => [
  gate,
  {
    gate,
    runs,
    // Each flaky tree failed once, each confirmed one twice; every other counted run passed.
    passed: runs - recent.length - uncounted - 2 * confirmed,
    flakes: recent.length,
    flakyRuns: recent.length,
    confirmed,
    cleared: 0,
    rate: recent.length / runs,
    advisoryRuns: uncounted,
    uncounted,
    recent,
  },
];

describe('flakyReport', () => {
  it('lists every gate that ran and every advisory gate, the recent trees of all gates newest first (at most 10)', () => {
    const tally = new Map([
      flakes('test', 64, [tree('test', 1), tree('test', 5)], 1),
      flakes(
        'e2e',
        10,
        Array.from({ length: 9 }, (_, i) => tree('e2e', 10 + i)),
      ),
    ]);
    const report = flakyReport(tally, { advisory: ['lint'] }, period, gateEvidenceOf(tally));
    expect(report.gates).toEqual([
      {
        gate: 'e2e',
        runs: 10,
        passed: 1,
        flakes: 9,
        flakyRuns: 9,
        confirmed: 0,
        cleared: 0,
        rate: 0.9,
        advisoryRuns: 0,
        uncounted: 0,
        advisory: false,
        assumed: 10 / 30,
      },
      {
        gate: 'lint',
        runs: 0,
        passed: 0,
        flakes: 0,
        flakyRuns: 0,
        confirmed: 0,
        cleared: 0,
        rate: 0,
        advisoryRuns: 0,
        uncounted: 0,
        advisory: true,
        assumed: 0.025,
      },
      {
        gate: 'test',
        runs: 64,
        passed: 60,
        flakes: 2,
        flakyRuns: 2,
        confirmed: 1,
        cleared: 0,
        rate: 2 / 64,
        advisoryRuns: 0,
        uncounted: 0,
        advisory: false,
        assumed: 3 / 82,
      },
    ]);
    // `assumed`, what the drain assumes: E[rate] under a Beta(1, 19) prior, half "deterministic" before any flake.
    expect(report.recent.map((t) => t.jobs[0])).toEqual(['j-18', 'j-17', 'j-16', 'j-15', 'j-14', 'j-13', 'j-12', 'j-11', 'j-10', 'j-5']);
    expect(report).toMatchObject({ advisory: ['lint'], policyProblem: null });
  });

  it('tells each flaky tree with its evidence, the rates and the advisory gates; an unreadable policy is said, the history still shown', () => {
    const tally = new Map([flakes('test', 64, [tree('test', 1)]), flakes('lint', 5, [], 0, 5)]);
    const text = flakyText(flakyReport(tally, { advisory: ['lint'] }, period, gateEvidenceOf(tally)));
    expect(text.split('\n')).toEqual([
      'land flaky: everything recorded, until 2026-12-02T05:00:00Z',
      'gate  runs  flakes  confirmed  cleared  rate    assumed  not counted',
      'lint  5     0       0          0        0       0.025    5            advisory',
      'test  64    1       0          0        0.0156  0.0238   0',
      'recent flaky trees (newest first):',
      `  tree 333333333333… gate test (job j-1): FAIL in train b1-2 (exit 1; log /logs/b1-2.log), PASS in train b1-3 (no log kept): flake`,
      'advisory gates (policy): lint: they run and their failures are recorded, never counted',
    ]);
    // Failed runs cleared by the train behind are said apart: they are in neither flakes nor rate.
    const [name, figures] = flakes('test', 10, []);
    const clearedText = flakyText(flakyReport(new Map([[name, { ...figures, cleared: 2 }]]), { advisory: [] }, period, new Map()));
    expect(clearedText).toContain('cleared: 2 failed run(s) in trains the train behind passed (flaky.clearing): not in flakes nor rate');
    expect(text).not.toContain('cleared:');
    const unknown = flakyText(flakyReport(new Map(), { problem: 'the policy cannot be read: bad JSON' }, period, new Map()));
    expect(unknown).toContain('no gate has run yet');
    expect(unknown).toContain('advisory gates: unknown (the policy cannot be read: bad JSON)');
    // A period with no run says so, not that no gate ever ran.
    const quiet = flakyText(flakyReport(new Map(), { advisory: [] }, { ...period, since: '2026-12-02T04:59:00.000Z' }, new Map()));
    expect(quiet).toContain('no gate ran in this period (a longer --since, or none, shows more)');
  });

  it('within one train: run numbers, the log once; the period printed to the second at both ends', () => {
    const log = '/logs/b7-1.log';
    const within: FlakyTree = {
      ...tree('test', 7),
      failed: [{ train: 'b7-1', run: 1, log, status: 'exit 1', at: null }],
      passed: { train: 'b7-1', run: 2, log, status: 'exit 0', at: '2026-12-01T10:07:00.000Z' },
    };
    const text = flakyText(
      flakyReport(
        new Map([flakes('test', 2, [within])]),
        { advisory: [] },
        { since: '2026-12-02T05:00:00.551Z', until: '2026-12-02T05:00:00.900Z' },
        new Map(),
      ),
    );
    expect(text).toContain(`gate test (job j-7): FAIL in run 1 of train b7-1 (exit 1), PASS in run 2 of train b7-1: flake; log ${log}`);
    expect(text.split('\n')[0]).toBe('land flaky: since 2026-12-02T05:00:00Z, until 2026-12-02T05:00:00Z');
  });
});
