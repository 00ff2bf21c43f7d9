// The drain's gate worktrees, one per gate slot, kept from train to train: a train takes an idle
// one and checks its commit out there, or makes one when none is idle; it gives it back when its
// gates are done, and the worktree is cleared at once (every file a gate left removed, its `.git`
// file written anew: lib/git/moveWorktree.ts) while the train lands, so the next train waits only
// for its checkout. The drain discards them all at its end; a drainer that died leaves them to the
// next drain's recovery, which removes every folder under the trains folder.
import {
  addDetachedWorktree,
  checkoutDetached,
  clearWorktree,
  discardWorktree,
  pinWorktree,
  restoreDotGit,
  type PinnedWorktree,
  type WorktreeRun,
} from '../../git/index.js';
import type { QueueStore } from '../../store/index.js';

/** An idle worktree, and whether its clearing (started when it was given back) succeeded. */
interface Idle {
  pinned: PinnedWorktree;
  cleared: Promise<boolean>;
}

export class WorktreePool {
  private idle: Idle[] = [];
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
      // Its gates have ended (and whatever they left running was killed): cleared now, in the background.
      // A gate may have left folders nobody can enter (chmod 000): given back to the drainer, then cleared again.
      const cleared = clearWorktree(pinned)
        .catch(() => {
          this.store.reopenTrainDir(pinned.dir);
          return clearWorktree(pinned);
        })
        .then(
          () => true,
          () => false,
        );
      this.idle.push({ pinned, cleared });
    }
  }

  /** Removes every kept worktree (the drain's end). */
  async close(): Promise<void> {
    const all = this.idle.splice(0);
    for (const { pinned, cleared } of all) {
      await cleared;
      await this.discard(pinned);
    }
  }

  /** An idle worktree checked out at `commit`, or a new one there; one that was not cleared or does not check out is replaced. */
  private async take(commit: string): Promise<PinnedWorktree> {
    const reused = this.idle.pop();
    if (reused) {
      try {
        if (await reused.cleared) {
          await checkoutDetached(reused.pinned, commit);
          return reused.pinned;
        }
      } catch {
        // then a fresh one, at a new path
      }
      // What cannot be removed is left to the next drain's recovery: this train gets a new folder all the same.
      await this.discard(reused.pinned).catch(() => undefined);
    }
    this.made += 1;
    const dir = this.store.trainDir(`slot-${this.made}`);
    await addDetachedWorktree(this.cwd, dir, commit, { onCleanup: (left) => this.store.removeTrainDir(left) });
    // Pinned before any of a change's code runs in it: land's git there afterwards uses this git folder.
    return pinWorktree(dir);
  }

  private async discard(pinned: PinnedWorktree): Promise<void> {
    this.store.reopenTrainDir(pinned.dir);
    // Through the git folder pinned at its making, so git's record of it goes too.
    try {
      restoreDotGit(pinned);
    } catch {
      // the folder is gone or unwritable: git's own removal decides
    }
    await discardWorktree(this.cwd, pinned.dir, { onCleanup: (left) => this.store.removeTrainDir(left) });
  }
}
