// The plain branch names isValidBranchName answers without starting git: git must accept each,
// and every unusual name is left to git.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPlainBranchName } from '../../lib/git/index.js';
import { cleanupTempDirs, makeRepo, type TestRepo } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

let repo: TestRepo;

beforeAll(() => {
  repo = makeRepo();
});

describe('isPlainBranchName', () => {
  const gitAccepts = (name: string) => {
    try {
      return (
        execFileSync('git', ['check-ref-format', '--branch', name], { cwd: repo.dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() === name
      );
    } catch {
      return false;
    }
  };

  it('takes only names git accepts as they are', () => {
    const names = ['main', 'feature/x-1', 'a.b', 'v1.2.3', 'x/y/z', '_a', 'a_b', 'release-2026', 'HEADS', 'x/HEAD', 'a.locked'];
    for (const name of names) expect([name, isPlainBranchName(name), gitAccepts(name)]).toEqual([name, true, true]);
  });

  it('leaves everything unusual to git', () => {
    const names = ['HEAD', 'a..b', 'x.lock', 'x.lock/y', 'a/.b', '.a', 'a.', 'a/', '/a', 'a//b', '@', '@{-1}', 'a@{u}', 'ünï', 'a b', '-a', 'a:b'];
    for (const name of names) expect([name, isPlainBranchName(name)]).toEqual([name, false]);
  });
});
