// `land tune` as a user runs it, on a tiny real repository: no history (a repository where land
// never ran, then one with jobs queued only), then three decided jobs (too little history to
// recommend), as text and as JSON. The replay and the advice are tested without git in
// replay.unit.test.ts and recommend.unit.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { makeQueueRepo, submitBranches } from '../helpers/queue.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';
import { runDrain } from '../helpers/drainHarness.js';

afterAll(() => cleanupTempDirs());

describe('land tune', () => {
  it('says there is no history yet, then replays three decided jobs and recommends nothing yet', async () => {
    const never = makeRepo();
    const empty = await land(never.dir, ['tune']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^no history yet: no job has landed or failed as a culprit/)]);

    const repo = makeQueueRepo({ batch: { max: 4, waitSeconds: 0, parallel: 1 } });
    await submitBranches(repo, 3, [2]);
    const queued = await land(repo.dir, ['tune', '--json']);
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.json()).toMatchObject({
      current: { max: 4, waitSeconds: 0, parallel: 1 },
      // The policy's flaky rule is replayed (the default: the evidence rule, from no flake history).
      input: { jobs: 0, landed: 0, culprits: 0, leftOut: { undecided: 3 }, flaky: { rule: 'evidence', threshold: 0.99, history: { passed: 0, flakes: 0 } } },
      settings: [],
      recommendation: { setting: null },
    });

    const run = await runDrain(repo.dir); // in this process: `land tune` is under test here
    expect(run.summary.stopped).toBeNull();
    const text = await land(repo.dir, ['tune']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^replayed 3 decided job\(s\): 2 landed, 1 culprit\(s\)/m);
    expect(text.stdout).toMatch(/^gate time: [\d.]+s per gate run \(the median of \d+ recorded train\(s\) that ran their gates\)$/m);
    expect(text.stdout).toMatch(/^4\s+0s\s+1\s+\d+\.\d\d\s+\S+\s+\S+\s+\d+\s+0\s+current$/m);
    expect(text.stdout).toMatch(/^flakes: none recorded$/m);
    expect(text.stdout).toMatch(/^no recommendation: too little history: 3 decided job\(s\)/m);
    // Nothing is said of flaky.clearing without a recommendation either.
    expect(text.stdout).not.toMatch(/flaky\.clearing/);

    const json = (await land(repo.dir, ['tune', '--json'])).json();
    expect(json.input).toMatchObject({ jobs: 3, landed: 2, culprits: 1, gate: { source: 'recorded' } });
    expect(json.settings.length).toBeGreaterThan(40);
    const current = json.settings.filter((f: { current: boolean }) => f.current);
    expect(current).toEqual([expect.objectContaining({ setting: { max: 4, waitSeconds: 0, parallel: 1 }, landed: 2, failed: 1 })]);
    expect(json.recommendation).toMatchObject({ setting: null, keep: false });
    expect(json.input).toMatchObject({ clearing: false, flakes: { rate: 0, flakyRuns: 0, cleared: 0 } });
    expect(json.clearing).toMatchObject({ on: null, now: false, off: null, with: null });

    const bad = await land(repo.dir, ['tune', '--since', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since/);
  });
});
