// A drainer killed between its compare-and-swap and the update of a checkout of the target leaves
// that checkout at the train's base: its index and files show the landing undone (staged), a
// commit there would revert it, and the next landing stops at target_dirty. Recovery finishes the
// update, but only when the checkout is exactly at the base of a landing it recovered: anything
// else is somebody's work and stays as it is.
import { branchTip, checkoutIsAt, syncWorktreeTo, worktreeOfBranch } from '../git/index.js';

/** Brings the target's checkout from `bases` (recovered landings' bases) to the target tip; returns its path when it did. */
export async function followInterruptedLanding(cwd: string, target: string, bases: readonly string[]): Promise<string | null> {
  if (!bases.length) return null;
  const worktree = await worktreeOfBranch(cwd, target);
  const tip = await branchTip(cwd, target);
  if (!worktree || !tip) return null;
  for (const base of new Set(bases)) {
    if (base === tip || !(await checkoutIsAt(worktree.path, base))) continue;
    await syncWorktreeTo(worktree.path, base, tip);
    return worktree.path;
  }
  return null;
}
