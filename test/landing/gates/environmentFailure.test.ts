// The environment-failure story (issue 22, item 2): the gates ran before the dependencies were
// installed, so the jobs and the target failed alike and the drain stopped for a red target (exit
// 10, checked end to end in redTarget.test.ts). Those FAILs were the environment's: once the
// dependencies are installed, the next `land run` must judge again, and land the innocent jobs
// with no hand editing and no `land retry`. The gate (fixtures/gates/needs-deps.sh) fails as node
// does on a missing module until the test creates $GATE_DEPS.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { runDrain } from '../../helpers/drainHarness.js';
import { jobsById, landedOrder, makeQueueRepo, submitBranches } from '../../helpers/queue.js';
import { FAIL_AT_ONCE } from '../../helpers/state.js';
import { cleanupTempDirs, tempDir } from '../../helpers/repo.js';

afterAll(cleanupTempDirs);

describe('an environment failure does not poison the verdict cache', () => {
  it('the FAILs a red target shared are voided: the target is gated again, and the jobs land once the dependency is there', async () => {
    const deps = join(tempDir('land-deps-'), 'node_modules');
    const repo = makeQueueRepo({ gate: { script: 'needs-deps.sh', env: { GATE_DEPS: deps } }, policy: FAIL_AT_ONCE });
    const mainTree = repo.git('rev-parse', 'main^{tree}').trim();
    const ids = await submitBranches(repo, 2);

    // [b1 b2] fails, [b1] fails alone, main itself fails: the drain stops, no job failed.
    const broken = await runDrain(repo.dir);
    expect(broken.summary).toMatchObject({ failed: [], landed: [], stopped: { why: 'target_red' } });
    expect(repo.gateRuns()).toBe(3);
    const listed = await land(repo.dir, ['verdicts', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const { verdicts } = JSON.parse(listed.stdout);
    expect(verdicts).toHaveLength(3);
    for (const v of verdicts) expect(v).toMatchObject({ verdict: 'FAIL', voided: { why: 'target_red' } });
    expect(verdicts.map((v: { tree: string }) => v.tree)).toContain(mainTree);

    // Still no dependency: the next run does not stop from the cached FAIL, it gates main first, and
    // stops again for one gate run; no train is built.
    const again = await runDrain(repo.dir);
    expect(again.summary).toMatchObject({ trains: 0, failed: [], stopped: { why: 'target_red' } });
    expect(again.of('checking_target')).toMatchObject([{ first: true }]);
    expect(again.of('target_checked')).toMatchObject([{ verdict: 'FAIL', cached: false, first: true }]);
    expect(repo.gateRuns()).toBe(4);

    // The dependency is installed: main passes, then the batch is judged afresh and lands, the window untouched.
    mkdirSync(deps);
    const fixed = await runDrain(repo.dir);
    expect(fixed.summary).toMatchObject({ failed: [], queued: [], window: 8, stopped: null });
    expect([...fixed.summary.landed].sort()).toEqual([...ids].sort());
    expect(fixed.of('target_checked')).toMatchObject([{ verdict: 'PASS', first: true }]);
    expect(fixed.events.some((e) => e.type === 'window')).toBe(false);
    expect(repo.gateRuns()).toBe(6);
    const jobs = await jobsById(repo);
    for (const id of ids) expect(jobs.get(id)).toMatchObject({ state: 'landed' });
    expect(landedOrder(repo)).toEqual(ids);

    // land verdicts forget, end to end: one tree, then the FAILs left; a bad tree and a missing one.
    const human = await land(repo.dir, ['verdicts']);
    expect(human.stdout).toMatch(new RegExp(`^${mainTree}\\s+\\S+\\s+PASS\\s+\\S+-target\\s+\\S+\\s+-$`, 'm'));
    expect(human.stdout).toMatch(/^[0-9a-f]{40}\s+\S+\s+FAIL test exit 1\s+\S+\s+\S+\s+target_red \(train \S+\)$/m);
    expect(await land(repo.dir, ['verdicts', 'forget', mainTree])).toMatchObject({ code: 0, stdout: 'forgot 1 cached verdict\n' });
    expect(await land(repo.dir, ['verdicts', 'forget', mainTree])).toMatchObject({ code: 4, stderr: `land: no cached verdict for tree ${mainTree}\n` });
    const bad = await land(repo.dir, ['verdicts', 'forget', 'main']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^land: verdicts forget: "main" is not a tree id/);
    const fails = await land(repo.dir, ['verdicts', 'forget', '--fails', '--json']);
    expect(JSON.parse(fails.stdout).forgot.map((v: { verdict: string }) => v.verdict)).toEqual(['FAIL']);
    const left = JSON.parse((await land(repo.dir, ['verdicts', '--json'])).stdout).verdicts;
    expect(left.map((v: { verdict: string; voided: unknown }) => [v.verdict, v.voided])).toEqual([['PASS', null]]);
  });
});
