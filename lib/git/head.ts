import type { PinnedWorktree } from './pinnedWorktree.js';
import { git } from './run.js';

/**
 * Points a detached worktree's HEAD at `commit` without touching its index or files (`reset
 * --soft`): used after the index was committed by hand, so the worktree is clean at `commit`.
 * `commit` must be an object id (reset takes no --end-of-options in git 2.39).
 */
export async function moveDetachedHead(dir: string, commit: string, pinned?: PinnedWorktree): Promise<void> {
  if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new Error(`moveDetachedHead: not an object id: ${JSON.stringify(commit)}`);
  await git(dir, [...(pinned?.config ?? []), 'reset', '--soft', commit, '--'], pinned ? { env: pinned.env } : {});
}
