import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { jobsById, landedOrder, makeQueueRepo, submitBranches } from '../../helpers/queue.js';
import { simulateDrain } from '../../../lib/landing/plan/simulate.js';

afterAll(cleanupTempDirs);

async function drainWithCulprits(n: number, culprits: number[]) {
  const repo = makeQueueRepo({ batch: { max: 16 } });
  const ids = await submitBranches(repo, n, culprits);
  expect((await land(repo.dir, ['window', '--set', String(n)])).code).toBe(0);
  const run = await land(repo.dir, ['run', '--json']);
  expect(run.code, run.stderr).toBe(0);
  const jobs = await jobsById(repo);
  return { repo, ids, jobs, run };
}

describe('land run: trains and bisection', () => {
  it('lands 8 clean jobs with one gate run and 8 merges in queue order', async () => {
    const { repo, ids, jobs, run } = await drainWithCulprits(8, []);
    expect(repo.gateRuns()).toBe(1);
    for (const id of ids) expect(jobs.get(id).state).toBe('landed');
    expect(landedOrder(repo)).toEqual(ids);
    // One CAS: every member records the same train commit, and it is the target's tip.
    const trains = new Set(ids.map((id) => jobs.get(id).train));
    expect(trains.size).toBe(1);
    expect([...trains][0]).toBe(repo.tip('main'));
    const summary = run.lines().at(-1);
    expect(summary).toMatchObject({ type: 'summary', gateRuns: 1, landed: ids });
  });

  // First, middle and last (npm run bench measures every position of 8 and 16).
  for (const position of [1, 4, 8]) {
    it(`fails a single culprit at position ${position} of 8 and lands the 7 others with the gate runs the planner replay predicts`, async () => {
      const { repo, ids, jobs, run } = await drainWithCulprits(8, [position]);
      // Before the culprit is failed alone, main itself is gated once unless its tree has a PASS on
      // record: here main's first tree was never gated, so a culprit isolated on it costs one run more.
      const targetChecks = run.lines().filter((e) => e.type === 'checking_target').length;
      expect(targetChecks).toBe(position === 1 ? 1 : 0);
      const culprit = ids[position - 1] as string;
      expect(jobs.get(culprit).state).toBe('failed');
      expect(jobs.get(culprit).reason).toBe('gate');
      expect(jobs.get(culprit).error?.message).toMatch(/gate test: exit 1/);
      const others = ids.filter((id) => id !== culprit);
      for (const id of others) expect(jobs.get(id).state).toBe('landed');
      expect(landedOrder(repo)).toEqual(others);
      // Isolating the culprit takes at most ceil(log2 8) + 2 = 5 runs; the jobs behind it then go
      // through the window the recorded rate gives (docs/drain.md, the window): pairs after a
      // culprit among the first few jobs. The planner's replay (plan/simulate.ts, main's own check
      // included) predicts the count exactly.
      const culprits = Array.from({ length: 8 }, (_, i) => i + 1 === position);
      expect(repo.gateRuns()).toBe(simulateDrain(culprits, 8).gateRuns);
      expect(repo.gateRuns()).toBeLessThanOrEqual(7 + targetChecks);
      expect(repo.git('ls-tree', '--name-only', 'main')).not.toContain(`culprit-${position}`);
      // Never the same tree twice: every gate run is a verdict not taken from the cache, or main's
      // own check (a bisection half with the failed train's tree, the last culprit alone, is a
      // cached FAIL).
      const verdicts = run.lines().filter((e) => e.type === 'verdict');
      expect(repo.gateRuns()).toBe(verdicts.filter((v) => !v.cached).length + targetChecks);
      if (position === 8) expect(verdicts.some((v) => v.cached && v.verdict === 'FAIL')).toBe(true);
    });
  }

  it('finds two culprits among 16', async () => {
    const { repo, ids, jobs } = await drainWithCulprits(16, [5, 12]);
    expect(jobs.get(ids[4]).state).toBe('failed');
    expect(jobs.get(ids[11]).state).toBe('failed');
    const others = ids.filter((_, i) => i !== 4 && i !== 11);
    for (const id of others) expect(jobs.get(id).state).toBe('landed');
    expect(landedOrder(repo)).toEqual(others);
    expect(repo.gateRuns()).toBeLessThanOrEqual(12);
  });

  it('finds a culprit at each end of the train', async () => {
    const { repo, ids, jobs } = await drainWithCulprits(8, [1, 8]);
    expect(jobs.get(ids[0]).state).toBe('failed');
    expect(jobs.get(ids[7]).state).toBe('failed');
    for (const id of ids.slice(1, 7)) expect(jobs.get(id).state).toBe('landed');
    expect(repo.gateRuns()).toBeLessThanOrEqual(9);
  });
});
