// The git reads a drain makes without one process per question: a commit, its tree and one of its
// files through one `cat-file --batch`; whether a branch is checked out anywhere from git's HEAD
// files; a train worktree removed without `git worktree remove`; a train built with containment
// answered from its merges; the common dir read from the repository's files. Each must say what the
// slower git calls said.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discardWorktree, readCommitFile, treeOf, worktreeOfBranch } from '../../lib/git/index.js';
import { commonDirFromFiles } from '../../lib/git/commonDirFromFiles.js';
import { buildTrain } from '../../lib/landing/trains/buildTrain.js';
import type { JobRecord } from '../../lib/store/index.js';
import { cleanupTempDirs, makeRepo, tempDir } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

describe('readCommitFile', () => {
  it('reads the commit a ref names, its tree and a file in it; null for no such ref; no file for a missing path or a folder', async () => {
    const repo = makeRepo();
    const tip = repo.commit('files', { 'a.json': '{"x": 1}\n', 'dir/b.txt': 'b\n' });
    const read = await readCommitFile(repo.dir, 'refs/heads/main', 'a.json');
    expect(read).toEqual({
      commit: tip,
      tree: repo.git('rev-parse', `${tip}^{tree}`),
      file: { oid: repo.git('rev-parse', `${tip}:a.json`), text: '{"x": 1}\n' },
    });
    expect(await treeOf(repo.dir, tip)).toBe(read?.tree);
    expect((await readCommitFile(repo.dir, 'refs/heads/main', 'nope.json'))?.file).toBeNull();
    expect((await readCommitFile(repo.dir, 'refs/heads/main', 'dir'))?.file).toBeNull();
    expect(await readCommitFile(repo.dir, 'refs/heads/no-such-branch', 'a.json')).toBeNull();
    // A ref naming a tree, not a commit, names no commit.
    repo.git('update-ref', 'refs/tags/treeish', `${tip}^{tree}`);
    expect(await readCommitFile(repo.dir, 'refs/tags/treeish', 'a.json')).toBeNull();
  });

  it('rejects with git error outside a repository', async () => {
    await expect(readCommitFile(tempDir(), 'refs/heads/main', 'a.json')).rejects.toMatchObject({ name: 'GitError' });
  });
});

describe('worktreeOfBranch and discardWorktree', () => {
  it('finds the branch in the main or a linked worktree, null when none has it; a worktree removed without git leaves no record', async () => {
    const repo = makeRepo();
    repo.branch('topic', { 't.txt': 't\n' });
    expect(await worktreeOfBranch(repo.dir, 'main')).toMatchObject({ path: repo.dir, branch: 'refs/heads/main' });
    expect(await worktreeOfBranch(repo.dir, 'topic')).toBeNull();

    const linked = join(tempDir(), 'linked');
    repo.git('worktree', 'add', '-q', linked, 'topic');
    expect(await worktreeOfBranch(repo.dir, 'topic')).toMatchObject({ path: linked, branch: 'refs/heads/topic' });
    repo.git('checkout', '-q', '--detach');
    expect(await worktreeOfBranch(repo.dir, 'main')).toBeNull();

    const cleaned: string[] = [];
    await discardWorktree(repo.dir, linked, { onCleanup: (left) => cleaned.push(left) });
    expect(existsSync(linked)).toBe(false);
    expect(cleaned).toEqual([linked]);
    expect(repo.git('worktree', 'list', '--porcelain')).not.toContain(linked);
    expect(await worktreeOfBranch(repo.dir, 'topic')).toBeNull();
    repo.git('checkout', '-q', 'topic'); // git agrees the branch is free
  });

  it('leaves a folder whose .git points elsewhere to git (which refuses it), deleting nothing itself', async () => {
    const repo = makeRepo();
    const dir = join(tempDir(), 'impostor');
    mkdirSync(dir);
    writeFileSync(join(dir, '.git'), `gitdir: ${join(repo.dir, '.git')}\n`);
    writeFileSync(join(dir, 'keep.txt'), 'mine\n');
    await discardWorktree(repo.dir, dir);
    expect(existsSync(join(dir, 'keep.txt'))).toBe(true);
    expect(existsSync(join(repo.dir, '.git', 'HEAD'))).toBe(true);
  });
});

describe('commonDirFromFiles', () => {
  const gitSays = (cwd: string) => execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd, encoding: 'utf8' }).trim();

  it("finds git's common dir in a main worktree, a folder in it, a linked worktree and through a symlink", () => {
    const repo = makeRepo();
    const sub = join(repo.dir, 'a', 'b');
    mkdirSync(sub, { recursive: true });
    const linked = join(tempDir(), 'linked');
    repo.git('worktree', 'add', '-q', '--detach', linked);
    const link = join(tempDir(), 'link');
    symlinkSync(sub, link);
    for (const cwd of [repo.dir, sub, linked, link]) {
      expect(commonDirFromFiles(cwd)).toBe(gitSays(cwd));
      expect(commonDirFromFiles(cwd)).not.toBeNull();
    }
  });

  it('leaves to git a bare repository, a folder in one, no repository, a .git that is no repository, and GIT_DIR', () => {
    const bare = tempDir();
    execFileSync('git', ['init', '-q', '--bare', bare]);
    const plain = tempDir();
    const fake = tempDir();
    mkdirSync(join(fake, '.git'));
    for (const cwd of [bare, join(bare, 'refs'), plain, fake]) expect(commonDirFromFiles(cwd)).toBeNull();
    const repo = makeRepo();
    process.env.GIT_DIR = join(repo.dir, '.git');
    try {
      expect(commonDirFromFiles(repo.dir)).toBeNull();
    } finally {
      delete process.env.GIT_DIR;
    }
    expect(commonDirFromFiles(repo.dir)).toBe(gitSays(repo.dir));
  });

  it('looks past a nested .git whose HEAD is empty, as git does, and leaves a gitdir with a .. step to git', () => {
    const repo = makeRepo();
    const nested = join(repo.dir, 'nested');
    mkdirSync(join(nested, '.git', 'objects'), { recursive: true });
    mkdirSync(join(nested, '.git', 'refs'));
    writeFileSync(join(nested, '.git', 'HEAD'), '');
    // git takes the outer repository; a broken HEAD is no repository (null: git is asked).
    expect(gitSays(nested)).toBe(join(repo.dir, '.git'));
    expect(commonDirFromFiles(nested)).toBeNull();
    const linked = join(tempDir(), 'linked');
    repo.git('worktree', 'add', '-q', '--detach', linked);
    const gitdir = readFileSync(join(linked, '.git'), 'utf8')
      .replace(/^gitdir: /, '')
      .trim();
    writeFileSync(join(linked, '.git'), `gitdir: ${gitdir}/../${basename(gitdir)}\n`);
    expect(commonDirFromFiles(linked)).toBeNull();
  });
});

const job = (id: string, tip: string): JobRecord => ({ id, branch: id, title: id, tip }) as unknown as JobRecord;

describe('buildTrain', () => {
  it('tells contained tips from empty changes, merges the rest, and skips a conflict against the target', async () => {
    const repo = makeRepo();
    const old = repo.tip('main');
    const landed = repo.branch('landed', { 'landed.txt': 'x\n' });
    repo.git('merge', '-q', '--ff-only', 'landed');
    repo.git('checkout', '-q', '-b', 'empty', old);
    const empty = repo.commit('nothing'); // not in main; its merge leaves main's tree as it is
    repo.git('checkout', '-q', 'main');
    const change = repo.branch('change', { 'change.txt': 'c\n' }, old);
    const clash = repo.branch('clash', { 'landed.txt': 'other\n' }, old);
    const base = repo.tip('main');
    const baseTree = repo.git('rev-parse', 'main^{tree}');

    const built = await buildTrain(repo.dir, base, baseTree, [job('a', landed), job('e', empty), job('c', change), job('x', clash)], 't-1');
    expect(built.contained.map((j) => j.id)).toEqual(['a']);
    expect(built.members.map((m) => m.job.id)).toEqual(['e', 'c']);
    expect(built.skipped).toMatchObject([{ job: { id: 'x' }, paths: ['landed.txt'], against: 'target' }]);
    expect(built.kind).toBe('merge');
    expect(repo.git('rev-list', '--count', `${base}..${built.train}`)).toBe('4'); // two merges, the empty commit and the change

    expect((await buildTrain(repo.dir, base, baseTree, [job('a', landed)], 't-2')).contained).toHaveLength(1);
    const ahead = repo.branch('ahead', { 'ahead.txt': 'a\n' });
    const ff = await buildTrain(repo.dir, base, baseTree, [job('f', ahead)], 't-3');
    expect(ff).toMatchObject({ kind: 'fast-forward', train: ahead, tree: repo.git('rev-parse', `${ahead}^{tree}`) });
  });
});
