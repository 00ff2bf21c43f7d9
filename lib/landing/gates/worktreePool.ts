// The drain's gate worktrees, one per gate slot, kept from train to train: a train takes an idle
// one and moves it to its commit (lib/git/moveWorktree.ts: a checkout of the differences, every
// file a gate left removed), or makes one when none is idle; it gives it back when its gates are
// done. The drain discards them all at its end; a drainer that died leaves them to the next
// drain's recovery, which removes every folder under the trains folder.
import { addDetachedWorktree, discardWorktree, moveWorktree, pinWorktree, restoreDotGit, type PinnedWorktree, type WorktreeRun } from '../../git/index.js';
import type { QueueStore } from '../../store/index.js';

export class WorktreePool {
  private idle: PinnedWorktree[] = [];
  private made = 0;

  constructor(
    private readonly cwd: string,
    private readonly store: QueueStore,
  ) {}

  /**
   * Runs `body` in a worktree at `commit` and keeps the worktree for the next train. A worktree
   * that cannot be made is an outcome (`made: false`), as with a fresh worktree per train.
   */
  async withWorktree<T>(commit: string, body: (pinned: PinnedWorktree) => Promise<T>): Promise<WorktreeRun<T>> {
    let pinned: PinnedWorktree;
    try {
      pinned = await this.take(commit);
    } catch (error) {
      return { made: false, message: (error as Error).message };
    }
    try {
      return { made: true, value: await body(pinned) };
    } finally {
      this.idle.push(pinned);
    }
  }

  /** Removes every kept worktree (the drain's end). */
  async close(): Promise<void> {
    const all = this.idle.splice(0);
    for (const pinned of all) await this.discard(pinned);
  }

  /** An idle worktree moved to `commit`, or a new one there; one that does not move is replaced. */
  private async take(commit: string): Promise<PinnedWorktree> {
    const reused = this.idle.pop();
    if (reused) {
      try {
        await moveWorktree(reused, commit);
        return reused;
      } catch {
        await this.discard(reused); // then a fresh one, at a new path
      }
    }
    this.made += 1;
    const dir = this.store.trainDir(`slot-${this.made}`);
    await addDetachedWorktree(this.cwd, dir, commit, { onCleanup: (left) => this.store.removeTrainDir(left) });
    // Pinned before any of a change's code runs in it: land's git there afterwards uses this git folder.
    return pinWorktree(dir);
  }

  private async discard(pinned: PinnedWorktree): Promise<void> {
    // Through the git folder pinned at its making, so git's record of it goes too.
    try {
      restoreDotGit(pinned);
    } catch {
      // the folder is gone or unwritable: git's own removal decides
    }
    await discardWorktree(this.cwd, pinned.dir, { onCleanup: (left) => this.store.removeTrainDir(left) });
  }
}
