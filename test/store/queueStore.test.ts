// What differs between a clone's own queue and a queue kept in a remote, as members of the one
// QueueStore interface: the git folder (a remote queue's cache is .git/land/remote/<remote>/, and
// its git folder is still .git: what `land repro` and the sandbox must use), the target's ref,
// the sandbox default, the drain lock's name, where it is kept.
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openQueueStore, openStore } from '../../lib/store/index.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';
import { makeTeam } from '../helpers/remoteTeam.js';

afterAll(cleanupTempDirs);

describe('QueueStore: a clone own queue and a queue kept in a remote', () => {
  it("a clone's own queue: .git/land/ in the git folder, the branch itself, the drain lock", async () => {
    const repo = makeRepo();
    const store = await openStore(repo.dir);
    const gitDir = join(realpathSync(repo.dir), '.git');
    expect(realpathSync(store.gitDir)).toBe(gitDir);
    expect(realpathSync(store.root)).toBe(join(gitDir, 'land'));
    expect(await store.describe()).toEqual({ remote: null, drainer: null });
    expect(store.targetRef('main')).toBe('refs/heads/main');
    expect(store.defaultSandboxMode()).toBe('auto');
    expect(store.drainLockName).toBe('the drain lock');
    expect(store.movesLocalTarget).toBe(true);
    expect(store.rowsPerDrainer).toBe(false);
    expect(store.keptIn('origin')).toBe(false);
  });

  it('a queue kept in a remote: its cache in .git/land/remote/<remote>/, its git folder still .git', async () => {
    const team = makeTeam();
    const clone = team.clone('alice');
    const store = await openQueueStore(clone.dir, { remote: 'origin', target: 'main', leaseSeconds: 4, pollSeconds: 1 });
    const gitDir = join(realpathSync(clone.dir), '.git');
    expect(realpathSync(store.gitDir)).toBe(gitDir);
    expect(realpathSync(store.root)).toBe(join(gitDir, 'land', 'remote', 'origin'));
    expect(await store.describe()).toEqual({ remote: 'origin', drainer: null });
    expect(store.targetRef('main')).toBe('refs/remotes/origin/main');
    expect(store.defaultSandboxMode()).toBe('required');
    expect(store.drainLockName).toBe('the queue lease on origin');
    expect(store.movesLocalTarget).toBe(false);
    expect(store.rowsPerDrainer).toBe(true);
    expect(store.keptIn('origin')).toBe(true);
    expect(store.keptIn('upstream')).toBe(false);
  });

  it('waitForChange: a change seen at the deadline wins over the timeout, in both stores', async () => {
    // `land run --watch --idle-exit N` once exited with a job waiting: the remote store's last poll
    // fetched the submission at the idle deadline, and the deadline was looked at first.
    const repo = makeRepo();
    const team = makeTeam();
    const stores = [
      await openStore(repo.dir),
      await openQueueStore(team.clone('bob').dir, { remote: 'origin', target: 'main', leaseSeconds: 4, pollSeconds: 1 }),
    ];
    for (const store of stores) {
      const now = store.jobsVersion();
      expect(await store.waitForChange({ since: `${now}-earlier`, timeoutMs: 0, poll: true })).toMatchObject({ kind: 'changed' });
      expect(await store.waitForChange({ since: now, timeoutMs: 0, poll: true })).toEqual({ kind: 'timeout' });
    }
  });
});
