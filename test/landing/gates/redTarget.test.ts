// A red target: when the target itself fails a gate, no queued job is failed for it. Before a
// job that rode alone is failed, the target tip is gated once (cached by tree); a red target stops
// the drain with exit 10, every job queued, and voids the FAILs it shared (the next run judges again). The counted gate fails on any culprit-* file, so a
// culprit-* file committed on main makes main itself red.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { jobsById, landedOrder, makeQueueRepo, submitBranches } from '../../helpers/queue.js';
import { FAIL_AT_ONCE } from '../../helpers/state.js';
import { runDrain, setWindowInProcess, submitInProcess } from '../../helpers/drainHarness.js';

afterAll(cleanupTempDirs);

describe('a red target', () => {
  it('stops the drain with exit 10 and fails no job; the next run gates main again; once main is fixed every job lands', async () => {
    const repo = makeQueueRepo({ policy: FAIL_AT_ONCE });
    const redTip = repo.commit('break main', { 'culprit-main': 'broken\n' });
    const ids = await submitBranches(repo, 3);

    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(10);
    const events = run.lines();
    const summary = events.at(-1);
    expect(summary).toMatchObject({ type: 'summary', failed: [], landed: [], stopped: { why: 'target_red' } });
    expect([...summary.queued].sort()).toEqual([...ids].sort());
    const check = events.find((e) => e.type === 'target_checked');
    expect(check).toMatchObject({ target: 'main', base: redTip, verdict: 'FAIL', cached: false, gate: 'test', status: 'exit 1' });
    expect(readFileSync(check.log, 'utf8')).toMatch(/found culprit-main: failing/);
    expect(summary.stopped.message).toBe(
      `main itself fails gate test (exit 1) at ${redTip.slice(0, 12)}; log ${check.log}; fix main (or install what its gates need), then run land again: it gates main again; no job was failed`,
    );
    expect(events.some((e) => e.type === 'failed')).toBe(false);
    // [j1 j2 j3], then [j1] (a failed train of 3 splits 1 + 2 at the prior culprit rate:
    // plan/trainPlan.ts splitFor), then main itself: one gate run for the target.
    expect(repo.gateRuns()).toBe(3);
    expect(events.filter((e) => e.type === 'checking_target')).toHaveLength(1);
    let jobs = await jobsById(repo);
    for (const id of ids) {
      expect(jobs.get(id)).toMatchObject({ state: 'queued', reason: 'target_red', error: null, requeues: {} });
    }
    expect(repo.tip('main')).toBe(redTip);

    // The FAILs of that stop are void (test/landing/gates/environmentFailure.test.ts): a new drain
    // gates main first rather than stopping from the cache, and stops the same way, one gate run later.
    const again = await land(repo.dir, ['run']);
    expect(again.code, again.stderr).toBe(10);
    expect(again.stderr).toContain(`gating main itself at ${redTip.slice(0, 12)}`);
    expect(again.stdout).toMatch(
      new RegExp(`stopped: main itself fails gate test \\(exit 1\\) at ${redTip.slice(0, 12)}; log \\S+-target\\.log; fix main .*; no job was failed`),
    );
    expect(again.stdout).not.toContain(check.log);
    expect(repo.gateRuns()).toBe(4);
    jobs = await jobsById(repo);
    for (const id of ids) expect(jobs.get(id).state).toBe('queued');

    // Fixed main has a new tree: it is judged afresh, and the batch rides whole.
    repo.git('rm', '-q', 'culprit-main');
    repo.commit('fix main');
    const fixed = await land(repo.dir, ['run', '--json']);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.lines().at(-1)).toMatchObject({ failed: [], queued: [], stopped: null });
    expect(repo.gateRuns()).toBe(5);
    jobs = await jobsById(repo);
    for (const id of ids) expect(jobs.get(id).state).toBe('landed');
    expect(landedOrder(repo)).toEqual(ids);
  });
});

// Variants of the same decision (the red-target check in lib/landing/gates/targetCheck.ts and the
// settlement), run by the real drain in this process: `summary.stopped.why` 'target_red' is what
// `land run` turns into exit 10 (checked end to end above); a stop of null is exit 0.
describe('a red target, the drain in process', () => {
  it('a lone job on a red target moves nothing: the window stays, no retry is counted, and it lands once main is fixed', async () => {
    const repo = makeQueueRepo({ policy: FAIL_AT_ONCE });
    repo.commit('break main', { 'culprit-main': 'broken\n' });
    repo.branch('fix-elsewhere', { 'other.txt': 'x\n' });
    const [id] = await submitInProcess(repo.dir, ['fix-elsewhere']);
    await setWindowInProcess(repo.dir, 4, 8);
    const run = await runDrain(repo.dir);
    expect(run.summary.stopped?.why).toBe('target_red');
    expect(run.events.some((e) => e.type === 'window')).toBe(false);
    expect(run.summary).toMatchObject({ window: 4, failed: [], queued: [id], stopped: { why: 'target_red' } });
    expect((await jobsById(repo)).get(id as string)).toMatchObject({ state: 'queued', reason: 'target_red', requeues: {} });
    repo.git('rm', '-q', 'culprit-main');
    repo.commit('fix main');
    const fixed = await runDrain(repo.dir);
    expect(fixed.summary.stopped).toBeNull();
    expect((await jobsById(repo)).get(id as string).state).toBe('landed');
  });

  it('a real culprit on a green target still fails alone; the target is gated at most once, then cached', async () => {
    const repo = makeQueueRepo({ policy: FAIL_AT_ONCE });
    const [first] = await submitBranches(repo, 1, [1], 'c');
    const run = await runDrain(repo.dir);
    expect(run.summary.stopped).toBeNull();
    expect(run.of('target_checked')[0]).toMatchObject({ verdict: 'PASS', cached: false });
    expect(repo.gateRuns()).toBe(2); // the culprit's train, then main itself
    expect((await jobsById(repo)).get(first as string)).toMatchObject({ state: 'failed', reason: 'gate' });

    const [second] = await submitBranches(repo, 1, [1], 'd');
    const next = await runDrain(repo.dir);
    expect(next.summary.stopped).toBeNull();
    expect(next.of('target_checked')[0]).toMatchObject({ verdict: 'PASS', cached: true });
    expect(next.events.some((e) => e.type === 'checking_target')).toBe(false);
    expect(repo.gateRuns()).toBe(3); // the second culprit's train only
    expect((await jobsById(repo)).get(second as string)).toMatchObject({ state: 'failed', reason: 'gate' });
  });
});
