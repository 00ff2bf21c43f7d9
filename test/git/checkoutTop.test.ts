// The checkout's top folder found without git, as git finds it, and only for this repository.
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkoutTop } from '../../lib/git/checkoutTop.js';
import { cleanupTempDirs, makeRepo, sh, tempDir } from '../helpers/repo.js';

afterEach(cleanupTempDirs);

describe('checkoutTop', () => {
  it('finds the main checkout from a subfolder, a linked worktree from inside it, and nothing for a bare repository or another repository', () => {
    const repo = makeRepo();
    const gitReal = realpathSync(join(repo.dir, '.git'));
    mkdirSync(join(repo.dir, 'src', 'deep'), { recursive: true });
    expect(checkoutTop(join(repo.dir, 'src', 'deep'), gitReal)).toBe(repo.dir);
    const linked = join(tempDir('land-linked-'), 'wt');
    repo.git('worktree', 'add', '-q', '--detach', linked);
    expect(checkoutTop(linked, gitReal)).toBe(linked);
    const bare = join(tempDir('land-bare-'), 'server.git');
    sh(repo.dir, ['clone', '-q', '--bare', repo.dir, bare]);
    expect(checkoutTop(bare, realpathSync(bare))).toBeNull();
    expect(checkoutTop(repo.dir, realpathSync(bare))).toBeNull();
  });
});
