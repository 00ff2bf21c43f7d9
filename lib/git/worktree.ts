// Worktrees: the detached checkout a train's gates run in (added, used, removed by one helper),
// and the lookup of a worktree that has the target branch checked out (it must follow the landing,
// or refuse when it is dirty).
import { existsSync } from 'node:fs';
import { git, runGit } from './run.js';

/** What a body run in a detached worktree returned, or why the worktree could not be made. */
export type WorktreeRun<T> = { made: true; value: T } | { made: false; message: string };

export interface WorktreeCleanup {
  /**
   * Deletes what is left of the folder once git has let go of it (the caller owns the folder: a
   * train dir in the state folder is removed by the store, never here). Its errors propagate.
   */
  onCleanup?: (dir: string) => void;
}

/**
 * Checks `commit` out, detached, in `dir`. When git refuses, `onCleanup` runs (git removes what a
 * failed add made) and the GitError is thrown.
 */
export async function addDetachedWorktree(cwd: string, dir: string, commit: string, opts: WorktreeCleanup = {}): Promise<void> {
  try {
    await git(cwd, ['worktree', 'add', '--detach', '--force', dir, commit]);
  } catch (error) {
    opts.onCleanup?.(dir);
    throw error;
  }
}

/** Removes a worktree with whatever is in it; throws GitError when even the prune fails. */
export async function removeWorktree(cwd: string, dir: string): Promise<void> {
  const removed = await runGit(cwd, ['worktree', 'remove', '--force', '--force', dir], { okCodes: [128] });
  // Only when git could not remove it (its folder already gone): forget the worktree's record.
  if (removed.code !== 0) await git(cwd, ['worktree', 'prune']);
}

/**
 * Removes a worktree that is no longer needed, then runs `onCleanup`. Never throws for git: a
 * leftover worktree is not worth failing a drain for (the next recovery removes it again).
 */
export async function discardWorktree(cwd: string, dir: string, opts: WorktreeCleanup = {}): Promise<void> {
  await removeWorktree(cwd, dir).catch(() => undefined);
  opts.onCleanup?.(dir);
}

/**
 * Runs `body` in a fresh detached worktree at `commit` in `dir`, and removes the worktree after
 * it (also when `body` throws; its error then propagates). A worktree git refuses to make is an
 * outcome, not an error: `{ made: false, message }` with git's message, and no folder left.
 */
export async function withDetachedWorktree<T>(
  cwd: string,
  dir: string,
  commit: string,
  body: () => Promise<T>,
  opts: WorktreeCleanup = {},
): Promise<WorktreeRun<T>> {
  try {
    await addDetachedWorktree(cwd, dir, commit, opts);
  } catch (error) {
    return { made: false, message: (error as Error).message };
  }
  try {
    return { made: true, value: await body() };
  } finally {
    await discardWorktree(cwd, dir, opts);
  }
}

export interface WorktreeInfo {
  path: string;
  head: string | null;
  branch: string | null;
  bare: boolean;
  /** git reports the worktree's folder gone (it would be pruned). */
  prunable: boolean;
}

export async function listWorktrees(cwd: string): Promise<WorktreeInfo[]> {
  const out = await git(cwd, ['worktree', 'list', '--porcelain', '-z']);
  const list: WorktreeInfo[] = [];
  let current: WorktreeInfo | null = null;
  for (const line of out.split('\0')) {
    if (line.startsWith('worktree ')) {
      current = { path: line.slice('worktree '.length), head: null, branch: null, bare: false, prunable: false };
      list.push(current);
    } else if (current && line.startsWith('HEAD ')) current.head = line.slice(5);
    else if (current && line.startsWith('branch ')) current.branch = line.slice(7);
    else if (current && line === 'bare') current.bare = true;
    else if (current && line.startsWith('prunable')) current.prunable = true;
  }
  return list;
}

/** The worktree that has `refs/heads/<branch>` checked out, if any. */
export async function worktreeOfBranch(cwd: string, branch: string): Promise<WorktreeInfo | null> {
  const list = await listWorktrees(cwd);
  // A worktree whose folder is gone holds no one's work: it neither follows nor blocks a landing.
  return list.find((entry) => entry.branch === `refs/heads/${branch}` && !entry.bare && !entry.prunable && existsSync(entry.path)) ?? null;
}

/**
 * True when a worktree has no staged or unstaged change to a tracked file (`git status
 * --porcelain` prints nothing). Untracked files do not count: they survive the landing unless git
 * would overwrite one, and then the sync reports it.
 */
export async function isWorktreeClean(dir: string): Promise<boolean> {
  return (await git(dir, ['status', '--porcelain', '--untracked-files=no'])) === '';
}

/** Moves a clean worktree's index and files to `commit` after its branch ref moved under it. */
export async function syncWorktreeTo(dir: string, from: string, commit: string): Promise<void> {
  await git(dir, ['read-tree', '-m', '-u', from, commit]);
}
