// An executor slot's checkout (`<dir>/slots/<n>`): a worktree of the cache repository, moved to
// each train's commit exactly as the drainer moves its own gate worktrees (lib/git/moveWorktree.ts):
// the gates that ran there before are untrusted, so the move goes through the worktree's admin
// folder as land names it (`cache.git/worktrees/<n>`, checked to point back at the slot, never read
// from the slot's `.git` file), removes every untracked and ignored file, and checks the commit
// out over what is left. A slot that is not as land left it is removed and made again.
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { addDetachedWorktree, checkoutDetached, clearWorktree, discardWorktree, pinnedAt, type PinnedWorktree } from '../../git/index.js';

/** The slot's worktree, pinned, if its admin folder is land's and points back at it. */
function existingSlot(cache: string, slotDir: string): PinnedWorktree | null {
  const admin = join(cache, 'worktrees', basename(slotDir));
  try {
    const back = readFileSync(join(admin, 'gitdir'), 'utf8').trim();
    if (realpathSync(dirname(back)) !== realpathSync(slotDir)) return null;
  } catch {
    return null;
  }
  return pinnedAt(slotDir, admin);
}

/** The slot's checkout at `commit`, reused when it can be, else made anew. Throws when git cannot. */
export async function checkoutSlot(cache: string, slotDir: string, commit: string): Promise<PinnedWorktree> {
  const kept = existsSync(slotDir) ? existingSlot(cache, slotDir) : null;
  if (kept !== null) {
    try {
      await clearWorktree(kept);
      await checkoutDetached(kept, commit);
      return kept;
    } catch {
      // then a new one
    }
  }
  // Whatever is left of the slot (a folder, or git's record of one): gone before it is made again.
  if (existsSync(slotDir) || existsSync(join(cache, 'worktrees', basename(slotDir))))
    await discardWorktree(cache, slotDir, { onCleanup: (left) => rmSync(left, { recursive: true, force: true }) });
  mkdirSync(dirname(slotDir), { recursive: true });
  await addDetachedWorktree(cache, slotDir, commit, { onCleanup: (left) => rmSync(left, { recursive: true, force: true }) });
  const made = existingSlot(cache, slotDir);
  if (made === null) throw new Error(`git made the worktree ${slotDir} but not at cache.git/worktrees/${basename(slotDir)}`);
  return made;
}
