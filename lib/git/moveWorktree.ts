// Moves a drain's reused gate worktree to the next train's commit, with a checkout of the
// differences instead of a new worktree per train (`git worktree add` cost more than the rest of a
// lone train's git together). The gates that ran in it are untrusted: they may have changed,
// added or removed any file there, ignored ones included, and rewritten its `.git` file. So the
// move goes through the git folder pinned when the worktree was made (GIT_DIR, GIT_WORK_TREE:
// never the `.git` file), removes every untracked and ignored file and nested repository
// (`clean -ffdx`), then checks the commit out over whatever is left (`checkout --force`: every
// tracked file that differs from the index by its stat data is written again), and writes the
// `.git` file anew. What is left is exactly the commit's tree. The two halves run apart: the
// clearing as soon as a train's gates are done, the checkout when the next train takes it.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PinnedWorktree } from './pinnedWorktree.js';
import { git } from './run.js';

/**
 * The first half of a move, run as soon as the gates are done (while the train lands): the `.git`
 * file written anew, and every untracked and ignored file and nested repository removed.
 */
export async function clearWorktree(pinned: PinnedWorktree): Promise<void> {
  restoreDotGit(pinned);
  await git(pinned.dir, [...pinned.config, 'clean', '-ffdxq'], { env: pinned.env });
}

/** The second half: `commit` checked out over a cleared worktree (every tracked file that differs from the index written). */
export async function checkoutDetached(pinned: PinnedWorktree, commit: string): Promise<void> {
  if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new Error(`not a commit id: ${JSON.stringify(commit)}`);
  await git(pinned.dir, [...pinned.config, 'checkout', '--quiet', '--force', '--no-recurse-submodules', '--detach', commit], { env: pinned.env });
}

/** Writes the worktree's `.git` file anew from its pinned git folder (a gate may have replaced it with anything). */
export function restoreDotGit(pinned: PinnedWorktree): void {
  rmSync(join(pinned.dir, '.git'), { recursive: true, force: true }); // a file, or whatever a gate left there
  writeFileSync(join(pinned.dir, '.git'), `gitdir: ${pinned.env.GIT_DIR}\n`);
}
