// Ids of jobs `land gc` pruned are never given again in a clone's own queue, even after the index
// of active jobs is rebuilt from the records (which no longer hold them): the journal still names them.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { idAfter } from '../../lib/store/index.js';
import { land } from '../helpers/cli.js';
import { makeQueueRepo, submitBranches } from '../helpers/queue.js';
import { cleanupTempDirs } from '../helpers/repo.js';
import { stateDir } from '../helpers/state.js';

afterAll(cleanupTempDirs);

describe('a pruned job', () => {
  it('keeps its id given out after gc and an index rebuild, and is never rebuilt', async () => {
    const repo = makeQueueRepo({});
    const ids = await submitBranches(repo, 2);
    for (const id of ids) expect((await land(repo.dir, ['cancel', id])).code).toBe(0);
    expect((await land(repo.dir, ['gc', '--older-than', '0m'])).code).toBe(0);
    // Its story is still told; no change brings it back.
    expect((await land(repo.dir, ['show', ids[0] as string])).code).toBe(0);
    expect((await land(repo.dir, ['retry', ids[0] as string])).code).toBe(4);
    rmSync(join(stateDir(repo), 'index.json'));
    const status = await land(repo.dir, ['status', '--all', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json().jobs).toEqual([]);
    const [next] = await submitBranches(repo, 1, [], 'later');
    expect(ids.every((id) => idAfter(next as string, id))).toBe(true);
  });
});
