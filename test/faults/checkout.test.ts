// Found by the soak's reasoning about kill moments: a drainer killed between its compare-and-swap
// and the update of the target's checkout left that checkout at the train's base. Its index then
// showed the landing undone (staged deletions: a `git commit` there would revert it), and every
// later drain stopped at target_dirty (exit 5). Recovery now finishes the update.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs } from '../helpers/repo.js';
import { jobsDir } from '../helpers/state.js';
import { afterFault, createBranches, makeFaultRepo, submitAll } from '../helpers/faultHarness.js';

afterAll(cleanupTempDirs);

describe.sequential('a kill between the CAS and the checkout update', () => {
  it("recovery brings the target's checkout to the landing; the next train lands", { timeout: 300_000 }, async () => {
    const fault = makeFaultRepo({ gateSleep: 0 });
    const { repo } = fault;
    createBranches(fault, [1, 2], [], 'k');
    const [first] = await submitAll(fault, ['k1']);
    const base = repo.tip('main');
    // Killed right after the compare-and-swap, before the checkout follows it: the target is at
    // the train, the member still in_progress with its train written, the checkout at the base.
    const killed = await land(repo.dir, ['run'], { env: { LAND_FAILPOINT: 'after-cas' } });
    expect(killed.code).not.toBe(0);
    const train = repo.tip('main');
    expect(train).not.toBe(base);
    const record = JSON.parse(readFileSync(join(jobsDir(repo), `${first}.json`), 'utf8'));
    expect(record).toMatchObject({ state: 'in_progress', train, base });
    expect(repo.git('status', '--porcelain', '--untracked-files=no')).toBe('D  file-k1.txt');

    const [second] = await submitAll(fault, ['k2']);
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const events = run.lines();
    expect(events).toContainEqual({ type: 'recovered', job: first, to: 'landed', train });
    expect(events).toContainEqual({ type: 'warning', message: `the checkout at ${repo.dir} followed the landing of a stopped drainer` });
    expect(events.find((e) => e.type === 'landed')?.members).toEqual([second]);
    expect(repo.git('status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(readFileSync(join(repo.dir, 'file-k1.txt'), 'utf8')).toBe('k1');
    await afterFault(fault, 'settled', 'after the interrupted checkout update');
  });

  it("leaves a checkout alone that holds somebody else's changes", { timeout: 300_000 }, async () => {
    const fault = makeFaultRepo({ gateSleep: 0 });
    const { repo } = fault;
    createBranches(fault, [1, 2], [], 'm');
    const [first] = await submitAll(fault, ['m1']);
    const base = repo.tip('main');
    expect((await land(repo.dir, ['run'])).code).toBe(0);
    const train = repo.tip('main');
    const path = join(jobsDir(repo), `${first}.json`);
    const record = JSON.parse(readFileSync(path, 'utf8'));
    writeFileSync(path, JSON.stringify({ ...record, state: 'in_progress' }));
    repo.git('read-tree', '-m', '-u', train, base);
    // Somebody edits a tracked file in that checkout: it is no longer exactly at the base.
    writeFileSync(join(repo.dir, 'README.md'), 'my own work\n');
    await submitAll(fault, ['m2']);
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code).toBe(5);
    expect(readFileSync(join(repo.dir, 'README.md'), 'utf8')).toBe('my own work\n');
    expect(run.lines()).not.toContainEqual(expect.objectContaining({ type: 'warning', message: expect.stringContaining('followed the landing') }));
  });
});
