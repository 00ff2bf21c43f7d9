// A job whose tip is no commit this repository has fails alone (reason bad_tip) and the drain goes
// on: broken here are one queued job's tip (its branch deleted and its commit pruned by git gc)
// and another's record (a hostile edit naming a blob). What must survive: the two good jobs land
// in one drain, exit 0 as for any failed job, and the next drain is not stuck on them.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { jobsById, makeQueueRepo, submitBranches } from '../../helpers/queue.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { journal, jobsDir } from '../../helpers/state.js';

afterAll(cleanupTempDirs);

describe('a job whose tip is no commit', () => {
  it('fails alone with bad_tip (a pruned tip, a blob), the others land, and the next drain is not stuck', async () => {
    const repo = makeQueueRepo();
    const [first, pruned, hostile, last] = (await submitBranches(repo, 4)) as [string, string, string, string];
    const goneTip = repo.tip('b2');
    repo.git('branch', '-D', 'b2');
    repo.git('reflog', 'expire', '--expire=now', '--all');
    repo.git('gc', '-q', '--prune=now');
    expect(() => repo.git('cat-file', '-e', goneTip)).toThrow();
    // A hostile record: the tip of job 3 names a blob.
    const blob = repo.git('rev-parse', 'main:README.md');
    const file = join(jobsDir(repo), `${hostile}.json`);
    writeFileSync(file, readFileSync(file, 'utf8').replace(repo.tip('b3'), blob));

    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const summary = run.lines().at(-1);
    expect(summary.landed.sort()).toEqual([first, last].sort());
    expect(summary.failed.sort()).toEqual([pruned, hostile].sort());
    const failures = run.lines().filter((event) => event.type === 'failed');
    expect(failures.map((event) => [event.job, event.reason]).sort()).toEqual([
      [pruned, 'bad_tip'],
      [hostile, 'bad_tip'],
    ]);
    // git's state: the good tips are in main, nothing of the bad ones rode a train.
    for (const branch of ['b1', 'b4']) repo.git('merge-base', '--is-ancestor', repo.tip(branch), 'main');
    const jobs = await jobsById(repo);
    expect(jobs.get(pruned)).toMatchObject({ state: 'failed', reason: 'bad_tip', attempts: 0, train: null });
    expect(jobs.get(pruned).error?.message).toBe(
      `tip ${goneTip.slice(0, 12)} is not in this repository (a deleted branch pruned by git gc, or a tip never pushed?)`,
    );
    expect(jobs.get(hostile).error).toEqual({ code: 'bad_tip', message: `tip ${blob.slice(0, 12)} is a blob, not a commit` });
    // Journal first: the failure is a transition from queued, naming the tip and what it is.
    const line = journal(repo).find((entry) => entry.job === pruned && entry.to === 'failed');
    expect(line).toMatchObject({ from: 'queued', event: 'failed', detail: { reason: 'bad_tip', tip: goneTip, found: 'missing' } });

    const again = await land(repo.dir, ['run', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.lines().at(-1)).toMatchObject({ trains: 0, failed: [], queued: [] });
    const why = await land(repo.dir, ['why', hostile]);
    expect(why.code, why.stderr).toBe(0);
    expect(why.stdout).toContain(`failed (bad_tip): tip ${blob.slice(0, 12)} is a blob, not a commit; no train can merge it`);
  });
});
