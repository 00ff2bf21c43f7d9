// Two land commands started together in one clone of a remote queue both fetch the queue refs into
// the same remote-tracking refs; the second can find a ref locked, or moved under it ("is at X but
// expected Y"). That is a race inside the clone, not a remote that cannot be reached: fetchRefs
// runs the fetch again, and only a lock that never goes is an error of its own (LocalRefsBusy).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fetchRefs, GitError, isLocalRefRace, LocalRefsBusy, RemoteUnreachable, runGit } from '../../lib/git/index.js';
import { cleanupTempDirs, fastCommits, makeRepo, sh, tempDir } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

const SPEC = '+refs/land/*:refs/land-queue/origin/*';

/** A bare server holding `count` refs under refs/land/, and a clone of it that has fetched none of them. */
function serverAndClone(count: number): { server: string; clone: string; write: (round: string) => void } {
  const source = makeRepo();
  const server = tempDir('land-race-server-');
  sh(server, ['init', '-q', '--bare']);
  sh(source.dir, ['push', '-q', server, 'main']);
  const clone = tempDir('land-race-clone-');
  sh(clone, ['clone', '-q', server, '.']);
  const write = (round: string) => {
    const ids = fastCommits(
      source.dir,
      Array.from({ length: count }, (_, i) => ({ ref: `refs/rounds/${round}/${i}`, message: `${round} ${i}`, files: { 'record.json': `${round} ${i}\n` } })),
    );
    sh(source.dir, ['push', '-q', '--force', server, ...ids.map((id, i) => `${id}:refs/land/jobs/${i}`)]);
  };
  write('first');
  return { server, clone, write };
}

async function stderrOf(cwd: string, args: string[]): Promise<string> {
  try {
    await runGit(cwd, args);
  } catch (error) {
    if (error instanceof GitError) return error.stderr;
  }
  throw new Error(`git ${args.join(' ')} did not fail`);
}

describe('isLocalRefRace, on what git itself prints', () => {
  it('knows a ref that moved under git and a ref whose lock file exists, and nothing else', async () => {
    const repo = makeRepo();
    const head = repo.tip('HEAD');
    const moved = await stderrOf(repo.dir, ['update-ref', 'refs/land-queue/x', head, '1'.repeat(40)]);
    expect(moved).toMatch(/cannot lock ref/);
    expect(isLocalRefRace(moved)).toBe(true);
    mkdirSync(join(repo.dir, '.git', 'refs', 'land-queue'), { recursive: true });
    writeFileSync(join(repo.dir, '.git', 'refs', 'land-queue', 'y.lock'), '');
    const locked = await stderrOf(repo.dir, ['update-ref', 'refs/land-queue/y', head]);
    expect(isLocalRefRace(locked)).toBe(true);
    const missing = await stderrOf(repo.dir, ['fetch', join(tempDir(), 'nowhere'), 'refs/heads/main']);
    expect(isLocalRefRace(missing)).toBe(false);
  });
});

describe('fetchRefs in a clone where other git processes update the same refs', () => {
  it('waits out a lock another process holds for longer than git waits, then fetches', async () => {
    const { clone } = serverAndClone(2);
    const lock = join(clone, '.git', 'refs', 'land-queue', 'origin', 'jobs', '0.lock');
    mkdirSync(join(lock, '..'), { recursive: true });
    writeFileSync(lock, '');
    // Held 1.5 s: past git's own wait for a lock (500 ms here, 100 ms by default), so only a
    // fetch that runs again gets through.
    const released = new Promise<void>((resolve) => setTimeout(() => resolve(rmSync(lock)), 1500));
    await fetchRefs(clone, 'origin', [SPEC]);
    await released;
    expect(sh(clone, ['for-each-ref', '--format=%(refname)', 'refs/land-queue/origin/jobs/']).split('\n')).toEqual([
      'refs/land-queue/origin/jobs/0',
      'refs/land-queue/origin/jobs/1',
    ]);
  });

  it('says the clone is busy, not that the remote is unreachable, when the lock never goes', async () => {
    const { clone } = serverAndClone(1);
    const lock = join(clone, '.git', 'refs', 'land-queue', 'origin', 'jobs', '0.lock');
    mkdirSync(join(lock, '..'), { recursive: true });
    writeFileSync(lock, '');
    const error = await fetchRefs(clone, 'origin', [SPEC]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LocalRefsBusy);
    expect(error).not.toBeInstanceOf(RemoteUnreachable);
    expect((error as LocalRefsBusy).message).toContain('0.lock');
    expect(existsSync(lock)).toBe(true); // someone else's lock is not ours to remove
  });

  it('lets twelve fetches run at once while the server moves forty refs, and every one ends with the newest refs', async () => {
    const { server, clone, write } = serverAndClone(40);
    await fetchRefs(clone, 'origin', [SPEC]);
    write('second');
    const fetches = Array.from({ length: 12 }, () => fetchRefs(clone, 'origin', [SPEC]));
    write('third');
    fetches.push(...Array.from({ length: 12 }, () => fetchRefs(clone, 'origin', [SPEC])));
    await Promise.all(fetches);
    const onServer = execFileSync('git', ['for-each-ref', '--format=%(objectname) %(refname:lstrip=2)', 'refs/land/'], { cwd: server, encoding: 'utf8' });
    const inClone = sh(clone, ['for-each-ref', '--format=%(objectname) %(refname:lstrip=3)', 'refs/land-queue/origin/']);
    expect(inClone.split('\n').sort()).toEqual(onServer.trim().split('\n').sort());
  });
});
