// Moves a drain's reused gate worktree to the next train's commit, with a checkout of the
// differences instead of a new worktree per train (`git worktree add` cost more than the rest of a
// lone train's git together). The gates that ran in it are untrusted: they may have changed,
// added or removed any file there, ignored ones included, and rewritten its `.git` file. So the
// move goes through the git folder pinned when the worktree was made (GIT_DIR, GIT_WORK_TREE:
// never the `.git` file), removes every untracked and ignored file and nested repository
// (`clean -ffdx`), then checks the commit out over whatever is left (`checkout --force`: every
// tracked file that differs from the index by its stat data is written again), and writes the
// `.git` file anew. What is left is exactly the commit's tree.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PinnedWorktree } from './pinnedWorktree.js';
import { git } from './run.js';

/** Resets the pinned worktree to exactly `commit`'s tree, HEAD detached at it. Throws GitError when git refuses. */
export async function moveWorktree(pinned: PinnedWorktree, commit: string): Promise<void> {
  const { dir, env, config } = pinned;
  if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new Error(`not a commit id: ${JSON.stringify(commit)}`);
  restoreDotGit(pinned);
  await git(dir, [...config, 'clean', '-ffdxq'], { env });
  await git(dir, [...config, 'checkout', '--quiet', '--force', '--no-recurse-submodules', '--detach', commit], { env });
}

/** Writes the worktree's `.git` file anew from its pinned git folder (a gate may have replaced it with anything). */
export function restoreDotGit(pinned: PinnedWorktree): void {
  rmSync(join(pinned.dir, '.git'), { recursive: true, force: true }); // a file, or whatever a gate left there
  writeFileSync(join(pinned.dir, '.git'), `gitdir: ${pinned.env.GIT_DIR}\n`);
}
