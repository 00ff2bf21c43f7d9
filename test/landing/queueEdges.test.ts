// Edges of the queue a user meets: waiting with a timeout, a corrupt window.json, a corrupt job
// record met by a drainer.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs } from '../helpers/repo.js';
import { jobsById, makeQueueRepo, submitBranches } from '../helpers/queue.js';

afterAll(cleanupTempDirs);

describe('queue edges', () => {
  it('submit --wait --timeout gives up with exit 9 and leaves the job queued', async () => {
    const repo = makeQueueRepo();
    repo.branch('slow', { 'slow.txt': 'x\n' });
    const waited = await land(repo.dir, ['submit', 'slow', '--wait', '--timeout', '0.5']);
    expect(waited.code).toBe(9);
    expect(waited.stderr).toMatch(/still queued after 0.5s/);
    expect(waited.stderr).toMatch(/waiting for j-\S+ to land \(no drainer runs now: nothing lands until one runs land run\)/);
    expect([...(await jobsById(repo)).values()].map((job) => job.state)).toEqual(['queued']);
  });

  it('reports a corrupt window.json with exit 8, and --reset replaces it', async () => {
    const repo = makeQueueRepo({ batch: { max: 6 } });
    expect((await land(repo.dir, ['window', '--set', '2'])).code).toBe(0); // creates the state folder
    writeFileSync(join(repo.dir, '.git', 'land', 'window.json'), '{"size": "big"');
    const broken = await land(repo.dir, ['window']);
    expect(broken.code).toBe(8);
    expect(broken.stderr).toMatch(/window\.json is corrupt/);
    const reset = await land(repo.dir, ['window', '--reset', '--json']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.json()).toMatchObject({ size: 6, persisted: 6 });
    expect(reset.json().history.at(-1)).toMatchObject({ event: 'reset' });
  });

  it('a drainer skips a corrupt job record, says so once, and lands the others', async () => {
    const repo = makeQueueRepo();
    const ids = await submitBranches(repo, 3);
    // A queued job's record, damaged (a record the index of active jobs names).
    const damaged = ids.pop() as string;
    const broken = join(repo.dir, '.git', 'land', 'jobs', `${damaged}.json`);
    writeFileSync(broken, `{"version": 1, "id": "${damaged}", "branch"`);
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const corrupt = run.lines().filter((e) => e.type === 'corrupt_record');
    expect(corrupt).toHaveLength(1);
    expect(corrupt[0].file).toBe(`${damaged}.json`);
    const jobs = await jobsById(repo);
    for (const id of ids) expect(jobs.get(id).state).toBe('landed');
  });
});
