// lib/git plumbing on real throwaway repositories: merge-tree outcomes, CAS, ancestry,
// commit-tree through stdin, branch-name validation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { branchTip, commitTree, GitError, isAncestor, isValidBranchName, mergeTree, revParse, treeOf, updateRefCas } from '../../lib/git/index.js';
import { cleanupTempDirs, makeRepo, type TestRepo } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

let repo: TestRepo;
let base: string;
let left: string;
let right: string;
let clash: string;

beforeAll(() => {
  repo = makeRepo();
  base = repo.commit('base', { 'shared.txt': 'one\ntwo\nthree\n' });
  left = repo.branch('left', { 'left.txt': 'left\n' });
  right = repo.branch('right', { 'right.txt': 'right\n' });
  repo.git('checkout', '-q', '-b', 'clash-a', 'main');
  repo.commit('a', { 'shared.txt': 'one\nA\nthree\n', 'dir/x.txt': 'a\n' });
  repo.git('checkout', '-q', '-b', 'clash-b', 'main');
  clash = repo.commit('b', { 'shared.txt': 'one\nB\nthree\n', 'dir/x.txt': 'b\n' });
  repo.git('checkout', '-q', 'main');
});

describe('mergeTree', () => {
  it('returns the merged tree of a clean merge without touching the worktree or index', async () => {
    const status = repo.git('status', '--porcelain');
    const result = await mergeTree(repo.dir, left, right);
    expect(result.kind).toBe('clean');
    if (result.kind !== 'clean') return;
    expect(result.tree).toMatch(/^[0-9a-f]{40}$/);
    expect(repo.git('cat-file', '-t', result.tree)).toBe('tree');
    expect(repo.git('ls-tree', '--name-only', result.tree).split('\n').sort()).toEqual(['README.md', 'left.txt', 'right.txt', 'shared.txt']);
    expect(repo.git('status', '--porcelain')).toBe(status);
    expect(repo.tip('HEAD')).toBe(base);
  });

  it('returns the conflicting paths when git exits 1', async () => {
    const result = await mergeTree(repo.dir, repo.tip('clash-a'), clash);
    expect(result.kind).toBe('conflict');
    if (result.kind !== 'conflict') return;
    expect(result.paths).toEqual(['dir/x.txt', 'shared.txt']);
    expect(result.tree).toMatch(/^[0-9a-f]{40}$/);
  });

  it('throws a GitError for a real failure', async () => {
    await expect(mergeTree(repo.dir, left, 'f'.repeat(40))).rejects.toBeInstanceOf(GitError);
  });
});

describe('updateRefCas', () => {
  it('moves the ref when it holds the expected value', async () => {
    repo.git('update-ref', 'refs/heads/cas', base);
    expect(await updateRefCas(repo.dir, 'refs/heads/cas', left, base)).toEqual({ kind: 'updated' });
    expect(repo.tip('refs/heads/cas')).toBe(left);
  });

  it('reports lost with the actual value and leaves the ref alone', async () => {
    repo.git('update-ref', 'refs/heads/cas2', right);
    expect(await updateRefCas(repo.dir, 'refs/heads/cas2', left, base)).toEqual({ kind: 'lost', actual: right });
    expect(repo.tip('refs/heads/cas2')).toBe(right);
  });

  it('reports lost with null when the ref does not exist', async () => {
    expect(await updateRefCas(repo.dir, 'refs/heads/no-such-ref', left, base)).toEqual({ kind: 'lost', actual: null });
    expect(await revParse(repo.dir, 'refs/heads/no-such-ref')).toBeNull();
  });
});

describe('isAncestor, revParse, branchTip', () => {
  it('answers ancestry both ways; a commit is its own ancestor', async () => {
    expect(await isAncestor(repo.dir, base, left)).toBe(true);
    expect(await isAncestor(repo.dir, left, base)).toBe(false);
    expect(await isAncestor(repo.dir, left, right)).toBe(false);
    expect(await isAncestor(repo.dir, left, left)).toBe(true);
    await expect(isAncestor(repo.dir, 'no-such-rev', left)).rejects.toBeInstanceOf(GitError);
  });

  it('resolves branches and returns null for what does not exist', async () => {
    expect(await branchTip(repo.dir, 'left')).toBe(left);
    expect(await branchTip(repo.dir, 'nope')).toBeNull();
    expect(await revParse(repo.dir, '--all')).toBeNull();
    expect(await treeOf(repo.dir, left)).toBe(repo.git('rev-parse', `${left}^{tree}`));
  });
});

describe('commitTree', () => {
  it('writes a root commit, a one-parent and a two-parent commit with the message from stdin', async () => {
    const tree = await treeOf(repo.dir, left);
    const message = '-m looks like an option\n\nbody line with $(touch PWNED) and "quotes"';
    const root = await commitTree(repo.dir, tree, [], message);
    expect(repo.git('log', '-1', '--format=%B', root)).toBe(message);
    expect(repo.git('rev-list', '--parents', '-n', '1', root)).toBe(root);
    expect(repo.git('rev-parse', `${root}^{tree}`)).toBe(tree);

    const one = await commitTree(repo.dir, tree, [base], 'one parent');
    expect(repo.git('rev-list', '--parents', '-n', '1', one)).toBe(`${one} ${base}`);

    const merge = await mergeTree(repo.dir, left, right);
    if (merge.kind !== 'clean') throw new Error('expected a clean merge');
    const two = await commitTree(repo.dir, merge.tree, [left, right], 'merge', { name: 'Drainer', email: 'drainer@land.invalid' });
    expect(repo.git('rev-list', '--parents', '-n', '1', two)).toBe(`${two} ${left} ${right}`);
    expect(repo.git('log', '-1', '--format=%an <%ae>|%cn <%ce>', two)).toBe('Drainer <drainer@land.invalid>|Drainer <drainer@land.invalid>');
    expect(await isAncestor(repo.dir, right, two)).toBe(true);
  });
});

describe('isValidBranchName', () => {
  it('accepts what git accepts as a literal branch name', async () => {
    for (const name of ['main', 'feature/x', 'a.b-c_d', `q'"s;$(touch\${IFS}PWNED)` + '`x`', 'ünï']) {
      expect(await isValidBranchName(repo.dir, name), name).toBe(true);
    }
  });

  it('refuses names git refuses, options and revision shorthands', async () => {
    for (const name of [
      '',
      'has space',
      '-x',
      '--all',
      'a..b',
      'x.lock',
      'a~1',
      'a^',
      'a:b',
      'a?',
      'a*',
      'a[',
      '/a',
      'a/',
      'a//b',
      '@{-1}',
      'a@{1}',
      'tab\tname',
      'HEAD',
    ]) {
      expect(await isValidBranchName(repo.dir, name), JSON.stringify(name)).toBe(false);
    }
  });
});
