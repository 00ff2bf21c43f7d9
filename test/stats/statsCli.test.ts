// The one end-to-end test of `land stats`: the built CLI on a tiny real repository (4 jobs, one
// culprit), before and after a drain. Every figure itself is tested on synthetic histories
// (figures.unit.test.ts); this checks the command's wiring: text, --json, --since, its usage errors.
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { makeQueueRepo, submitBranches } from '../helpers/queue.js';
import { FAIL_AT_ONCE } from '../helpers/state.js';
import { cleanupTempDirs } from '../helpers/repo.js';
import { runDrain } from '../helpers/drainHarness.js';

afterAll(cleanupTempDirs);

describe('land stats', () => {
  it('says there is no history yet, then gives the figures of a drain; --since narrows the period', async () => {
    const repo = makeQueueRepo({ policy: FAIL_AT_ONCE });
    const none = await land(repo.dir, ['stats']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe('no history yet: jobs submitted with `land submit` and drained by `land run` make it\n');
    const noneJson = (await land(repo.dir, ['stats', '--json'])).json();
    expect(noneJson).toMatchObject({ empty: true, jobs: { total: 0, landed: 0 }, gateRuns: { total: 0, perLandedJob: null } });

    const ids = await submitBranches(repo, 4, [3]);
    // The drain in this process (test/helpers/drainHarness.ts): `land stats` is under test here.
    const run = await runDrain(repo.dir);
    expect(run.summary.stopped).toBeNull();
    const { summary } = run;

    const json = await land(repo.dir, ['stats', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const stats = json.json();
    expect(stats.jobs).toMatchObject({ total: 4, landed: 3, failed: 1, failedByReason: { gate: 1 } });
    expect(stats.culprits).toEqual({ culprits: 1, decided: 4, rate: 0.25 });
    // The drain's own count, less main's check before the culprit failed alone (no metrics row).
    const targetChecks = run.of('checking_target').length;
    expect(stats.gateRuns.total).toBe(summary.gateRuns - targetChecks);
    expect(stats.trains.bisected).toBeGreaterThanOrEqual(1);
    expect(stats.trains.total).toBe(run.of('verdict').length);
    expect(stats.gates.map((g: { name: string }) => g.name)).toEqual(['test']);
    expect(stats.time.timeToLand.count).toBe(3);
    expect(stats.window.sizes.length).toBeGreaterThan(1);

    const text = await land(repo.dir, ['stats']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^land stats: everything recorded, until /);
    expect(text.stdout).toContain('jobs          3 landed, 1 failed, 0 canceled; now 0 queued, 0 riding');
    expect(text.stdout).toContain('culprits      1 of 4 decided jobs (25.0%)');
    expect(text.stdout).toMatch(/\ngates +gate +runs +median +p90 +flaky\n +test +\d+ /);
    expect(text.stdout).toMatch(/\nwindow +now \d+; between \d+ and \d+ over \d+ train\(s\) \(0 set, 0 reset\)\n +[▁▂▃▄▅▆▇█]+\n$/);

    const after = new Date().toISOString();
    const later = await land(repo.dir, ['stats', '--since', after]);
    expect(later.code, later.stderr).toBe(0);
    expect(later.stdout).toBe(`no history since ${after}: jobs submitted with \`land submit\` and drained by \`land run\` make it\n`);
    expect(ids).toHaveLength(4);

    const bad = await land(repo.dir, ['stats', '--since', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/--since: expected a date .* got "yesterday"/);
    const both = await land(repo.dir, ['stats', '--json', '--openmetrics']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/either --json or --openmetrics/);
  });
});
