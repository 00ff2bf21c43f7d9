// What a gate can do to the state folder: delete a member's record (it is rebuilt from the
// journal and the drain goes on), or remove the whole folder (the drain stops and says so, exit 8,
// instead of blaming "another drainer"; `land status` then says there is no queue, honestly).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo, UNSANDBOXED } from '../helpers/repo.js';
import { jobsById, submitBranches } from '../helpers/queue.js';

afterAll(cleanupTempDirs);

function repoWithGate(script: string) {
  return makeRepo({
    policy: { target: 'main', gates: [{ name: 'test', run: ['sh', '-c', script], timeoutSeconds: 60 }], batch: { max: 8 }, sandbox: UNSANDBOXED },
  });
}

const DELETE_RECORDS = 'for j in $LAND_MEMBERS; do rm -f "$(git rev-parse --git-common-dir)/land/jobs/$j.json"; done; exit 0';
const REMOVE_STATE = 'rm -rf "$(git rev-parse --git-common-dir)/land"; exit 0';

describe('a gate that deletes state', () => {
  it('deleting the records of running jobs: they are rebuilt from the journal and land', async () => {
    const repo = repoWithGate(DELETE_RECORDS);
    const ids = await submitBranches(repo, 2);
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines().at(-1)).toMatchObject({ type: 'summary', landed: ids });
    const jobs = await jobsById(repo);
    for (const id of ids) expect(jobs.get(id).state).toBe('landed');
    const journal = readFileSync(join(repo.dir, '.git', 'land', 'journal.jsonl'), 'utf8');
    expect(journal.match(/"event":"rebuilt"/g)).toHaveLength(2);
    const why = await land(repo.dir, ['why', ids[0] as string]);
    expect(why.stdout).toMatch(/rebuilt from the journal/);
  });

  it('a record the journal cannot rebuild (an older journal) is reported as corrupt; the drain goes on with the others', async () => {
    const repo = repoWithGate('exit 0');
    const [old, fresh] = await submitBranches(repo, 2);
    const state = join(repo.dir, '.git', 'land');
    const lines = readFileSync(join(state, 'journal.jsonl'), 'utf8').split('\n').filter(Boolean);
    const older = lines.map((line) => {
      const entry = JSON.parse(line);
      if (entry.job === old) delete entry.record;
      return JSON.stringify(entry);
    });
    writeFileSync(join(state, 'journal.jsonl'), `${older.join('\n')}\n`);
    rmSync(join(state, 'jobs', `${old}.json`));
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines()).toContainEqual(expect.objectContaining({ type: 'corrupt_record', file: `${old}.json` }));
    expect(run.lines().at(-1)).toMatchObject({ type: 'summary', landed: [fresh] });
  });

  it('removing the whole state folder: the drain stops with exit 8 naming the folder and the train; status says there is no queue', async () => {
    const repo = repoWithGate(REMOVE_STATE);
    const before = repo.tip('main');
    const [id] = await submitBranches(repo, 1);
    const run = await land(repo.dir, ['run']);
    expect(run.code, run.stderr).toBe(8);
    expect(run.stderr).toMatch(/land: the state folder .*\.git\/land was removed while the drain ran \(by the gate of train b-[0-9a-f-]+\?\)/);
    expect(run.stderr).toContain(`${id} "b1" was in_progress`);
    expect(run.stderr).not.toMatch(/another drainer/);
    expect(repo.tip('main')).toBe(before);
    const status = await land(repo.dir, ['status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/no queue here/);
    expect(status.stdout).not.toMatch(/the queue is empty/);
    // The queue works again once the gate no longer removes it: the worktree git still records
    // where the vanished state folder was is no obstacle to the next drain's.
    const policy = JSON.parse(repo.git('show', 'main:.ctm.json'));
    policy.gates[0].run = ['true'];
    repo.commit('a gate that leaves the state alone', { '.ctm.json': `${JSON.stringify(policy, null, 2)}\n` });
    const [again] = await submitBranches(repo, 1, [], 'again');
    const next = await land(repo.dir, ['run']);
    expect(next.code, next.stderr).toBe(0);
    expect((await land(repo.dir, ['show', again as string, '--json'])).json().state).toBe('landed');
  });
});
