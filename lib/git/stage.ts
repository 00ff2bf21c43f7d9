import type { PinnedWorktree } from './pinnedWorktree.js';
import { git } from './run.js';

/** Stages every change of a worktree, new and deleted files included (`git add -A`; .gitignore applies). */
export async function stageAll(dir: string, pinned?: PinnedWorktree): Promise<void> {
  await git(dir, [...(pinned?.config ?? []), 'add', '--all', '--', '.'], pinned ? { env: pinned.env } : {});
}

/** Writes the worktree's index as a tree object and returns its id. */
export async function writeTreeOfIndex(dir: string, pinned?: PinnedWorktree): Promise<string> {
  return git(dir, [...(pinned?.config ?? []), 'write-tree'], pinned ? { env: pinned.env } : {});
}
