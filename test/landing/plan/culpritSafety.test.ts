// The safety rule of the window and bisection planning, on a real drain (real git, the built CLI):
// a job is failed only by a FAIL of a train in which it rode alone; nothing is lost or landed
// twice; good jobs are never failed; and the culprit rate is what window.json records.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { jobsById, landedOrder, makeQueueRepo, submitBranches } from '../../helpers/queue.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { stateDir } from '../../helpers/state.js';

afterAll(cleanupTempDirs);

interface Event {
  type: string;
  train?: string;
  members?: string[];
  verdict?: string;
  job?: string;
}

describe('culprits under the rate-sized window (cold start, batch.max 8)', () => {
  it('8 jobs, 2 culprits: exactly the culprits fail, each after a lone FAIL; the others land once, in order', async () => {
    const repo = makeQueueRepo({ batch: { max: 8 } });
    const ids = await submitBranches(repo, 8, [2, 5]);
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const events = run.lines() as Event[];
    const culprits = [ids[1], ids[4]] as string[];
    const good = ids.filter((id) => !culprits.includes(id));

    const jobs = await jobsById(repo);
    for (const id of culprits) expect(jobs.get(id)).toMatchObject({ state: 'failed', reason: 'gate' });
    for (const id of good) expect(jobs.get(id).state).toBe('landed');
    // Each landed once, in queue order: job 1 alone fast-forwards main (no merge commit names it),
    // every later one is a merge commit on main's first-parent line.
    expect(jobs.get(ids[0]).landedVia).toBe('fast-forward');
    expect(landedOrder(repo)).toEqual(good.slice(1));
    expect(events.at(-1)).toMatchObject({ type: 'summary', queued: [], failed: expect.arrayContaining(culprits) });

    // Every failed event follows a train in which that job rode alone and whose verdict was FAIL.
    const verdictOf = new Map(events.filter((e) => e.type === 'verdict').map((e) => [e.train, e.verdict]));
    const failed = events.filter((e) => e.type === 'failed');
    expect(failed.map((e) => e.job).sort()).toEqual([...culprits].sort());
    for (const { job } of failed) {
      const at = events.findIndex((e) => e.type === 'failed' && e.job === job);
      const lone = events.slice(0, at).filter((e) => e.type === 'train_built' && e.members?.length === 1 && e.members[0] === job);
      expect(lone.length, `${job} rode alone before it failed`).toBeGreaterThan(0);
      expect(verdictOf.get(lone.at(-1)?.train)).toBe('FAIL');
    }

    // 1-8 F, 1-3 F (split 3 + 5 at the prior's rate 1/7), 1 P (lands), 2-3 (cached FAIL), 2 F F
    // (a new gate: one confirming re-run, the FAIL of 2-3 with 3 waiting counting too; fails; rate
    // 2/9, window 2), 3-4 P (window 6), 5-8 F, 5-6 F, 5 F F (one confirming re-run; fails; window
    // 2), 6-7 P, 8 P: 12 runs in 11 trains, as the replay (plan/simulate.ts, the flaky rule from no
    // history) counts them. main's own check is free each time (its tree is the last landed
    // train's, a PASS on record).
    expect(events.filter((e) => e.type === 'checking_target')).toEqual([]);
    expect(events.filter((e) => e.type === 'gate_rerun').map((e) => e.job)).toEqual([culprits[0], culprits[1]]);
    expect(repo.gateRuns()).toBe(12);
    // The rate is on record: every job decided once, the two culprits among them.
    const history = JSON.parse(readFileSync(join(stateDir(repo), 'window.json'), 'utf8')).history as { jobs?: number; culprits?: number }[];
    const recorded = { jobs: 0, culprits: 0 };
    for (const entry of history) {
      recorded.jobs += entry.jobs ?? 0;
      recorded.culprits += entry.culprits ?? 0;
    }
    expect(recorded).toEqual({ jobs: 8, culprits: 2 });
  });
});
