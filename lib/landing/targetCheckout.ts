// A checkout of the target with uncommitted changes stops a landing (local/landByCas.ts): the drain
// looks for one before it gates anything, so nobody waits through the gates to hear it.
import { isWorktreeClean, worktreeOfBranch } from '../git/index.js';
import type { QueueStore } from '../store/index.js';
import type { Stopped } from './drainSummary.js';
import { dirtyTargetMessage } from './plan/dirtyTarget.js';

/**
 * The drain's stop when a worktree has `target` checked out with uncommitted changes to tracked
 * files; undefined when there is none, or when landings do not move this clone's target (a queue
 * kept in a remote). The landing checks again: a checkout dirtied during the gates still stops it.
 */
export async function dirtyTargetStop(cwd: string, store: QueueStore, target: string): Promise<Stopped | undefined> {
  if (!store.movesLocalTarget) return undefined;
  const worktree = await worktreeOfBranch(cwd, target);
  if (!worktree || (await isWorktreeClean(worktree.path))) return undefined;
  return { why: 'target_dirty', message: dirtyTargetMessage(target, worktree.path, false) };
}
