// The check every output path a user names (`land report --html`, `land repro --dir`) goes
// through, on a real throwaway repository with a linked worktree: what is inside the git folder,
// also through `..`, symlinks (dangling ones too) and folders not made yet, and what is not.
import { mkdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertOutsideGitFolder, gitFolderHolding, gitFolders } from '../../lib/git/index.js';
import { cleanupTempDirs, makeRepo, tempDir, type TestRepo } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

let repo: TestRepo;
let common: string;
let linked: string;
let outside: string;

beforeAll(() => {
  repo = makeRepo();
  common = join(repo.dir, '.git');
  linked = join(tempDir(), 'linked');
  repo.git('worktree', 'add', '-q', '--detach', linked);
  outside = tempDir();
  symlinkSync(join(common, 'refs'), join(outside, 'to-refs'));
  symlinkSync(join(common, 'not-yet'), join(outside, 'dangling'));
  symlinkSync(common, join(outside, 'to-git'));
  mkdirSync(join(outside, 'plain'));
});

describe('gitFolders', () => {
  it('names the common folder, the worktree its own folder and the .git entry at its top', async () => {
    expect(await gitFolders(repo.dir)).toEqual([common]);
    expect(await gitFolders(linked)).toEqual([common, join(common, 'worktrees', 'linked'), join(linked, '.git')]);
  });
});

describe('gitFolderHolding', () => {
  const holder = (path: string, folders = [common]) => gitFolderHolding(resolve(repo.dir, path), folders);

  it('holds what is in the git folder, the folder itself and what would be made in it', () => {
    expect(holder('.git')).toBe(common);
    expect(holder('.git/HEAD')).toBe(common);
    expect(holder('.git/land/jobs/j-1.json')).toBe(common);
    expect(holder('.git/new/folders/report.html')).toBe(common);
    expect(holder('.git/..report.html')).toBe(common);
    expect(holder('sub/../.git/config')).toBe(common);
  });

  it('follows symlinks: to a folder inside, through a link to the git folder, a dangling link, a link in a missing path', () => {
    expect(holder(join(outside, 'to-refs', 'heads', 'main'))).toBe(common);
    expect(holder(join(outside, 'to-git'))).toBe(common);
    expect(holder(join(outside, 'to-git', 'made', 'later'))).toBe(common);
    expect(holder(join(outside, 'dangling'))).toBe(common);
  });

  it('does not hold the work tree, a sibling named like it, or a plain folder elsewhere', () => {
    expect(holder('report.html')).toBeNull();
    expect(holder('.github/report.html')).toBeNull();
    expect(holder('.git-report.html')).toBeNull();
    expect(holder(join(outside, 'plain', 'report.html'))).toBeNull();
    expect(holder(join(outside, 'to-git', '..', 'report.html'))).toBeNull(); // `..` is taken out before the links
  });

  it('in a linked worktree: its own git folder and its .git file are held', async () => {
    const folders = await gitFolders(linked);
    expect(gitFolderHolding(join(linked, '.git'), folders)).toBe(join(linked, '.git'));
    expect(gitFolderHolding(join(common, 'worktrees', 'linked', 'HEAD'), folders)).toBe(common);
    expect(gitFolderHolding(join(linked, 'report.html'), folders)).toBeNull();
  });
});

describe('assertOutsideGitFolder', () => {
  it('refuses with a usage error naming the option, the path and the folder; lets a path outside through', async () => {
    const path = join(common, 'HEAD');
    await expect(assertOutsideGitFolder(repo.dir, path, '--html')).rejects.toMatchObject({
      code: 'usage',
      message: `--html ${path} is inside the repository's git folder (${common}); name a path outside it`,
    });
    await expect(assertOutsideGitFolder(repo.dir, join(repo.dir, 'report.html'), '--html')).resolves.toBeUndefined();
  });
});
