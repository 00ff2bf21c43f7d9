// fileAtTip (one `git cat-file --batch-command` for a branch's tip and a file there) against real
// git, and the plain branch names isValidBranchName answers without git: git must agree on each.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileAtTip, isPlainBranchName, showFile } from '../../lib/git/index.js';
import { cleanupTempDirs, makeRepo, type TestRepo } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

let repo: TestRepo;
let tip: string;

beforeAll(() => {
  repo = makeRepo();
  tip = repo.commit('files', {
    'policy.json': '{"a": 1}\n',
    'empty.txt': '',
    'no-newline.txt': 'last line',
    'ünï.txt': 'ünïcödé ✓\n\nmissing\n',
    'dir/inside.txt': 'x\n',
  });
});

describe('fileAtTip', () => {
  it("gives the tip and the file's content as cat-file blob does", async () => {
    for (const path of ['policy.json', 'empty.txt', 'no-newline.txt', 'ünï.txt', 'dir/inside.txt']) {
      expect(await fileAtTip(repo.dir, 'main', path), path).toEqual({ tip, content: await showFile(repo.dir, tip, path) });
    }
  });

  it('gives a null content for a missing file or a folder, and a null tip for a missing branch', async () => {
    expect(await fileAtTip(repo.dir, 'main', 'nope.json')).toEqual({ tip, content: null });
    expect(await fileAtTip(repo.dir, 'main', 'dir')).toEqual({ tip, content: null });
    expect(await fileAtTip(repo.dir, 'no-such-branch', 'policy.json')).toEqual({ tip: null, content: null });
  });
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
