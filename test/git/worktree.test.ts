// lib/git worktrees on real throwaway repositories: the add/run/remove helper every gate run
// goes through (made, body run there, removed even when the body throws, a refused add is a value
// with git's message and leaves no folder), and the clean check a checked-out target needs.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDetachedWorktree, discardWorktree, isWorktreeClean, withDetachedWorktree } from '../../lib/git/index.js';
import { cleanupTempDirs, makeRepo, tempDir, type TestRepo } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

let repo: TestRepo;
let first: string;
let second: string;

beforeAll(() => {
  repo = makeRepo();
  first = repo.commit('first', { 'a.txt': 'one\n' });
  second = repo.commit('second', { 'a.txt': 'two\n' });
});

/** The folders of the repository's worktrees other than its main one. */
function extraWorktrees(): string[] {
  return repo
    .git('worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length))
    .filter((path) => path !== repo.dir);
}

const removeFolder = (dir: string) => rmSync(dir, { recursive: true, force: true });

describe('withDetachedWorktree', () => {
  it('runs the body in a detached checkout of the commit, then removes the worktree and calls onCleanup', async () => {
    const dir = join(tempDir(), 'train');
    const cleaned: string[] = [];
    const result = await withDetachedWorktree(
      repo.dir,
      dir,
      first,
      async () => {
        expect(extraWorktrees()).toEqual([dir]);
        return {
          content: readFileSync(join(dir, 'a.txt'), 'utf8'),
          head: repo.git('-C', dir, 'rev-parse', 'HEAD'),
          branch: repo.git('-C', dir, 'rev-parse', '--abbrev-ref', 'HEAD'),
        };
      },
      { onCleanup: (left) => cleaned.push(left) },
    );
    expect(result).toEqual({ made: true, value: { content: 'one\n', head: first, branch: 'HEAD' } });
    expect(existsSync(dir)).toBe(false);
    expect(extraWorktrees()).toEqual([]);
    expect(cleaned).toEqual([dir]);
    // The main worktree did not move.
    expect(repo.tip('HEAD')).toBe(second);
  });

  it('removes the worktree, files written in it included, when the body throws, and the error propagates', async () => {
    const dir = join(tempDir(), 'train');
    const cleaned: string[] = [];
    const run = withDetachedWorktree(
      repo.dir,
      dir,
      second,
      async () => {
        writeFileSync(join(dir, 'a.txt'), 'changed\n');
        writeFileSync(join(dir, 'new.txt'), 'untracked\n');
        throw new Error('gate runner broke');
      },
      { onCleanup: (left) => cleaned.push(left) },
    );
    await expect(run).rejects.toThrow('gate runner broke');
    expect(existsSync(dir)).toBe(false);
    expect(extraWorktrees()).toEqual([]);
    expect(cleaned).toEqual([dir]);
  });

  it("returns made: false with git's message when the worktree cannot be made, runs no body and leaves no folder", async () => {
    const dir = join(tempDir(), 'train');
    let ran = false;
    const result = await withDetachedWorktree(
      repo.dir,
      dir,
      '0123456789012345678901234567890123456789',
      async () => {
        ran = true;
      },
      { onCleanup: removeFolder },
    );
    expect(ran).toBe(false);
    expect(result.made).toBe(false);
    if (result.made) return;
    expect(result.message).toMatch(/^git worktree add .*failed \(exit 128\): fatal: /);
    expect(result.message).toContain('0123456789012345678901234567890123456789');
    expect(existsSync(dir)).toBe(false);
    expect(extraWorktrees()).toEqual([]);
  });

  it("names git's fatal line, not its progress, when it refuses a non-empty folder; onCleanup removes the folder", async () => {
    const dir = join(tempDir(), 'train');
    mkdirSync(dir);
    writeFileSync(join(dir, 'stale.txt'), 'left by a crash\n');
    const result = await withDetachedWorktree(repo.dir, dir, first, async () => 'ran', { onCleanup: removeFolder });
    expect(result).toEqual({ made: false, message: expect.stringMatching(/failed \(exit 128\): fatal: '.*' already exists$/) });
    expect(existsSync(dir)).toBe(false);
    expect(extraWorktrees()).toEqual([]);
  });
});

describe('addDetachedWorktree and discardWorktree', () => {
  it('keeps the worktree after adding it (repro), and discarding it removes it and calls onCleanup', async () => {
    const dir = join(tempDir(), 'repro');
    await addDetachedWorktree(repo.dir, dir, first);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('one\n');
    expect(extraWorktrees()).toEqual([dir]);
    const cleaned: string[] = [];
    await discardWorktree(repo.dir, dir, { onCleanup: (left) => cleaned.push(left) });
    expect(existsSync(dir)).toBe(false);
    expect(extraWorktrees()).toEqual([]);
    expect(cleaned).toEqual([dir]);
  });

  it("throws git's error when the add is refused, after calling onCleanup", async () => {
    const dir = join(tempDir(), 'repro');
    const cleaned: string[] = [];
    await expect(addDetachedWorktree(repo.dir, dir, 'no-such-commit', { onCleanup: (left) => cleaned.push(left) })).rejects.toMatchObject({
      name: 'GitError',
      exitCode: 128,
    });
    expect(cleaned).toEqual([dir]);
    expect(existsSync(dir)).toBe(false);
  });

  it('discarding a worktree whose folder is already gone forgets its record and does not throw', async () => {
    const dir = join(tempDir(), 'gone');
    await addDetachedWorktree(repo.dir, dir, first);
    rmSync(dir, { recursive: true, force: true });
    await discardWorktree(repo.dir, dir);
    expect(extraWorktrees()).toEqual([]);
  });

  it('discarding a folder that is no worktree at all does not throw (recovery of a half-made train dir)', async () => {
    const dir = join(tempDir(), 'half');
    mkdirSync(dir);
    await discardWorktree(repo.dir, dir, { onCleanup: removeFolder });
    expect(existsSync(dir)).toBe(false);
  });
});

describe('isWorktreeClean', () => {
  it('is true for a clean checkout and with only untracked files, false with a staged or unstaged change', async () => {
    const dir = join(tempDir(), 'target');
    await addDetachedWorktree(repo.dir, dir, second);
    try {
      expect(await isWorktreeClean(dir)).toBe(true);
      writeFileSync(join(dir, 'untracked.txt'), 'new\n');
      expect(await isWorktreeClean(dir)).toBe(true);
      writeFileSync(join(dir, 'a.txt'), 'edited\n');
      expect(await isWorktreeClean(dir)).toBe(false);
      repo.git('-C', dir, 'add', 'a.txt');
      expect(await isWorktreeClean(dir)).toBe(false);
      repo.git('-C', dir, 'checkout', '-q', 'HEAD', '--', 'a.txt');
      expect(await isWorktreeClean(dir)).toBe(true);
    } finally {
      await discardWorktree(repo.dir, dir);
    }
  });
});
