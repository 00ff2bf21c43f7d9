// Jobs named by branch (lib/queue/lookup.ts through lib/cli/jobArg.ts): why, show, log, repro,
// cancel and retry take a branch name (its latest job) or nothing (the checked-out branch's), and
// a branch resubmitted at a new tip after a failure names the failed job it follows. One real
// drain (in this process) fails b2; the commands run in this process but repro (a real process).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, tempDirs } from '../helpers/repo.js';
import { jobsById, makeQueueRepo, submitBranches, type QueueRepo } from '../helpers/queue.js';
import { journal, readJobFile } from '../helpers/state.js';
import { runDrain } from '../helpers/drainHarness.js';

afterAll(cleanupTempDirs);

describe('jobs looked up by branch', () => {
  let repo: QueueRepo;
  let failed: string;

  beforeAll(async () => {
    repo = makeQueueRepo();
    const ids = await submitBranches(repo, 2, [2]);
    failed = ids[1] as string;
    expect((await runDrain(repo.dir)).summary.stopped).toBeNull();
    expect((await jobsById(repo)).get(failed).state).toBe('failed');
  });

  it('why, show, log and repro take a branch or nothing (the checked-out branch); an unknown name exits 4 with a did-you-mean', async () => {
    const found = `land: ${failed} is the latest job of b2`;
    for (const command of ['why', 'show', 'log']) {
      const result = await land(repo.dir, [command, 'b2']);
      expect(result.code, `${command}: ${result.stderr}`).toBe(0);
      expect(result.stderr, command).toContain(found);
    }
    expect((await land(repo.dir, ['show', 'b2', '--json'])).json().id).toBe(failed);
    expect((await land(repo.dir, ['why', 'b2'])).stdout.startsWith(`${failed}: b2 at `)).toBe(true);
    const repro = await land(repo.dir, ['repro', 'b2', '--json']);
    expect(repro.code, repro.stderr).toBe(0);
    tempDirs.push(repro.json().dir);
    expect(repro.json().job).toBe(failed);
    repo.git('worktree', 'remove', '--force', repro.json().dir);

    // No argument: the checked-out branch's latest job; detached, or a branch without jobs, refused.
    repo.git('checkout', '-q', 'b2');
    const current = await land(repo.dir, ['show', '--json']);
    expect(current.code, current.stderr).toBe(0);
    expect(current.json().id).toBe(failed);
    expect(current.stderr).toContain(`land: ${failed} is the latest job of the checked-out branch b2`);
    repo.git('checkout', '-q', '--detach');
    const detached = await land(repo.dir, ['why']);
    expect(detached.code).toBe(2);
    expect(detached.stderr).toContain('HEAD is detached');
    repo.git('checkout', '-q', 'main');
    const noJob = await land(repo.dir, ['log']);
    expect(noJob.code).toBe(4);
    expect(noJob.stderr).toContain('the checked-out branch "main" has no job');

    for (const command of ['why', 'show', 'log', 'cancel', 'retry']) {
      const unknown = await land(repo.dir, [command, 'bb2']);
      expect(unknown.code, command).toBe(4);
      expect(unknown.stderr.split('\n')[0], command).toBe('land: no job or branch with jobs named "bb2"; did you mean b2?');
    }
    const notAName = await land(repo.dir, ['show', '../x']);
    expect(notAName.code).toBe(2);
  });

  it('a resubmission at a new tip follows the failed job (record, journal, show, why); cancel and retry take the branch', async () => {
    repo.git('checkout', '-q', 'b2');
    repo.commit('fix b2', { 'fixed.txt': 'fixed\n' });
    repo.git('checkout', '-q', 'main');
    const submitted = await land(repo.dir, ['submit', 'b2']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const next = /^queued (j-\S+): b2 at [0-9a-f]{12}; follows failed (j-\S+)$/m.exec(submitted.stdout)?.[1];
    expect(submitted.stdout).toContain(`; follows failed ${failed}`);
    expect(next).not.toBe(failed);
    expect(readJobFile(repo, next as string).follows).toBe(failed);
    expect(journal(repo).find((e) => e.job === next && e.event === 'submitted')?.detail).toMatchObject({ branch: 'b2', follows: failed });
    const show = await land(repo.dir, ['show', 'b2']);
    expect(show.stdout).toMatch(new RegExp(`^follows +${failed}: the branch's failed job before this tip`, 'm'));
    const why = await land(repo.dir, ['why', 'b2', '--json']);
    expect(why.json().job.id).toBe(next);
    expect(why.json().events[0]).toMatchObject({ kind: 'submitted', follows: failed });
    expect((await land(repo.dir, ['why', 'b2'])).stdout).toContain(`follows ${failed}: the branch's failed job before this tip`);
    // The first job of a branch follows nothing.
    expect(readJobFile(repo, failed).follows).toBeUndefined();

    const canceled = await land(repo.dir, ['cancel', 'b2', '--json']);
    expect(canceled.code, canceled.stderr).toBe(0);
    expect(canceled.json()).toMatchObject({ outcome: 'canceled', job: { id: next } });
    const retried = await land(repo.dir, ['retry', 'b2', '--json']);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.lines()).toMatchObject([{ outcome: 'requeued', job: { id: next, state: 'queued' } }]);
  });
});
