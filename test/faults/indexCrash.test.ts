// A kill between a record write and the write of the index of active jobs (failpoint
// `before-index`): the journal has grown past what the index mirrors, so the next command catches
// the index up from the journal's new lines. Nothing is lost or queued twice: status shows the job,
// a resubmit finds it, a new submit takes a fresh id, the drain lands every job once, and
// `land reconcile --check` finds nothing to repair.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land, startLand } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';
import { statusJobsById } from '../helpers/queue.js';
import { BASIC_POLICY } from '../helpers/state.js';

afterAll(cleanupTempDirs);

async function killedAt(dir: string, args: string[], point: string): Promise<void> {
  const run = startLand(dir, args, { env: { LAND_FAILPOINT: point } });
  const ended = await run.done;
  expect(ended.signal, `${args.join(' ')} with LAND_FAILPOINT=${point}: ${ended.stderr}`).toBe('SIGKILL');
  expect(ended.stderr).toContain(`failpoint ${point.replace(/@\d+$/, '')} reached`);
}

describe('a kill between a record and the index of active jobs', () => {
  it('leaves nothing lost or doubled: status, submit and run read the journal past the index', async () => {
    const repo = makeRepo({ policy: { ...BASIC_POLICY, batch: { max: 1 } } });
    for (const name of ['b1', 'b2', 'b3']) repo.branch(name, { [`${name}.txt`]: `${name}\n` });
    const first = await land(repo.dir, ['submit', 'b1', '--json']);
    expect(first.code, first.stderr).toBe(0);
    await killedAt(repo.dir, ['submit', 'b2'], 'before-index');

    const status = await land(repo.dir, ['status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).not.toMatch(/rebuilt the index/); // caught up, not rebuilt
    const queued = status.json().jobs.map((job: { branch: string; position: number }) => [job.branch, job.position]);
    expect(queued).toEqual([
      ['b1', 1],
      ['b2', 2],
    ]);
    const b2 = status.json().jobs[1].id;
    const again = await land(repo.dir, ['submit', 'b2', '--json']);
    expect(again.json()).toMatchObject({ outcome: 'existing', job: { id: b2 } });
    const third = await land(repo.dir, ['submit', 'b3', '--json']);
    expect(third.json().outcome).toBe('created');
    expect([first.json().job.id, b2]).not.toContain(third.json().job.id);

    // Killed before the index write of the drain's second change (the first train's claim is journaled and written).
    await killedAt(repo.dir, ['run'], 'before-index@2');
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const jobs = await statusJobsById(repo);
    expect([...jobs.values()].map((job) => job.state)).toEqual(['landed', 'landed', 'landed']);
    expect((await land(repo.dir, ['status', '--json'])).json().jobs).toEqual([]);
    const check = await land(repo.dir, ['reconcile', '--check', '--json']);
    expect(check.code, check.stdout).toBe(0);
    expect(existsSync(join(repo.dir, '.git', 'land', 'index.json'))).toBe(true);
  });
});
