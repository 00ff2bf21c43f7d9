// restoredTree and checkoutTreeInWorktree on real repositories: trusted paths the train changed,
// added or deleted come back as the target has them; other paths stay the train's.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addDetachedWorktree, checkoutTreeInWorktree, restoredTree } from '../../lib/git/index.js';
import { matchGlob } from '../../lib/landing/plan/glob.js';
import { cleanupTempDirs, makeRepo, tempDir } from '../helpers/repo.js';

afterAll(cleanupTempDirs);

const under =
  (...globs: string[]) =>
  (path: string) =>
    globs.some((glob) => matchGlob(path, glob));

describe('restoredTree', () => {
  it('restores changed, added and deleted trusted paths from the target and keeps the rest', async () => {
    const repo = makeRepo();
    repo.commit('machinery', { 'gate.sh': 'v1\n', 'ci/a.sh': 'a\n', 'ci/b.sh': 'b\n', 'src/x.txt': 'x\n' });
    repo.git('checkout', '-q', '-b', 'train');
    repo.write('gate.sh', 'exit 0\n');
    repo.write('ci/new.sh', 'new\n');
    repo.write('src/x.txt', 'changed\n');
    repo.git('rm', '-q', 'ci/b.sh');
    repo.commit('train');
    repo.git('checkout', '-q', 'main');

    const restored = await restoredTree(repo.dir, 'train', 'main', under('gate.sh', 'ci/**', 'tools/**'));
    expect(restored.paths).toEqual(['ci/b.sh', 'ci/new.sh', 'gate.sh']);
    const files = repo.git('ls-tree', '-r', '--name-only', restored.tree).split('\n');
    expect(files.sort()).toEqual(['README.md', 'ci/a.sh', 'ci/b.sh', 'gate.sh', 'src/x.txt']);
    expect(repo.git('show', `${restored.tree}:gate.sh`)).toBe('v1');
    expect(repo.git('show', `${restored.tree}:src/x.txt`)).toBe('changed');
    // Nothing trusted changed: the train's own tree.
    const none = await restoredTree(repo.dir, 'train', 'main', under('docs/**'));
    expect(none).toEqual({ tree: repo.tip('train^{tree}'), paths: [] });

    // A clean checkout of the train ends up with exactly that tree; HEAD stays the train.
    const dir = join(tempDir('land-wt-'), 'wt');
    await addDetachedWorktree(repo.dir, dir, repo.tip('train'));
    expect(await checkoutTreeInWorktree(dir, restored.tree)).toBe(restored.tree);
    expect(readFileSync(join(dir, 'gate.sh'), 'utf8')).toBe('v1\n');
    expect(existsSync(join(dir, 'ci', 'new.sh'))).toBe(false);
    expect(readFileSync(join(dir, 'ci', 'b.sh'), 'utf8')).toBe('b\n');
    expect(readFileSync(join(dir, 'src', 'x.txt'), 'utf8')).toBe('changed\n');
    expect(repo.git('-C', dir, 'rev-parse', 'HEAD')).toBe(repo.tip('train'));
  });
});
