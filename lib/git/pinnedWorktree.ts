// A train's worktree after a change's own code ran in it (a refresh entry): its `.git` file is the
// change's to rewrite, and a `gitdir:` pointing at a folder it made (with `core.fsmonitor` in that
// folder's config) would run its code in the drainer's next git process. So the git folder is read
// before the code runs, and land's git calls in the worktree afterwards name it explicitly
// (GIT_DIR, GIT_WORK_TREE), with fsmonitor and hooks off.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The git environment of a worktree, pinned to the admin folder its `.git` file names now. */
export interface PinnedWorktree {
  dir: string;
  env: Record<string, string>;
  /** `-c` settings every call adds. */
  config: string[];
}

export function pinWorktree(dir: string): PinnedWorktree {
  const pointer = /^gitdir: (.+)$/m.exec(readFileSync(join(dir, '.git'), 'utf8'))?.[1]?.trim();
  if (!pointer) throw new Error(`${dir}/.git names no git folder`);
  return pinnedAt(dir, resolve(dir, pointer));
}

/** A worktree pinned to the admin folder `gitDir` named by land itself (never read from the worktree). */
export function pinnedAt(dir: string, gitDir: string): PinnedWorktree {
  return {
    dir,
    env: { GIT_DIR: gitDir, GIT_WORK_TREE: dir },
    config: ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null'],
  };
}
