// Worktrees: the detached checkout a train's gates run in (added, used, removed by one helper),
// and the lookup of a worktree that has the target branch checked out (it must follow the landing,
// or refuse when it is dirty).
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { commonDir } from './repo.js';
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
  if (!forgetWorktree(await commonDir(cwd), dir)) await removeWorktree(cwd, dir).catch(() => undefined);
  opts.onCleanup?.(dir);
}

/**
 * Removes the linked worktree at `dir` the way `git worktree remove --force --force` does, without
 * starting git (a drain removes one per train): deletes the folder, then its administrative folder
 * `<common>/worktrees/<id>`, found through `<dir>/.git` and checked to point back at `dir`. False
 * when anything is not as `git worktree add` left it (nothing is deleted then): git removes it.
 */
function forgetWorktree(common: string, dir: string): boolean {
  try {
    // A gate may have replaced `.git` with a symlink to another train's: then git decides.
    if (!lstatSync(join(dir, '.git')).isFile()) return false;
    const pointer = /^gitdir: (.+)$/.exec(readFileSync(join(dir, '.git'), 'utf8').trim())?.[1];
    if (!pointer) return false;
    const admin = realpathSync(resolve(dir, pointer));
    if (dirname(admin) !== realpathSync(join(common, 'worktrees'))) return false;
    const back = readFileSync(join(admin, 'gitdir'), 'utf8').trim();
    if (realpathSync(resolve(admin, back)) !== realpathSync(join(dir, '.git'))) return false;
    rmSync(dir, { recursive: true, force: true });
    rmSync(admin, { recursive: true, force: true });
    return true;
  } catch {
    return false;
  }
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

/** A HEAD file's symbolic ref ("ref: refs/heads/x"), `detached` for a commit id, null for anything else. */
function headOf(file: string): string | null {
  const text = readFileSync(file, 'utf8').trim();
  if (/^[0-9a-f]{40,64}$/.test(text)) return 'detached';
  return /^ref: (refs\/\S+)$/.exec(text)?.[1] ?? null;
}

/**
 * Whether no worktree can have `ref` checked out, read from the HEAD files git keeps (the main
 * worktree's and one per linked worktree) instead of starting `git worktree list` for every
 * landing. False whenever it cannot tell: a HEAD names `ref`, a HEAD it does not understand (the
 * reftable format keeps HEAD elsewhere), or a file it cannot read; then git is asked.
 */
function surelyNotCheckedOut(common: string, ref: string): boolean {
  try {
    if (existsSync(join(common, 'reftable'))) return false;
    const linked = join(common, 'worktrees');
    const heads = [join(common, 'HEAD'), ...(existsSync(linked) ? readdirSync(linked).map((name) => join(linked, name, 'HEAD')) : [])];
    return heads.every((file) => {
      const head = headOf(file);
      return head !== null && head !== ref && head !== 'refs/heads/.invalid';
    });
  } catch {
    return false;
  }
}

/** The worktree that has `refs/heads/<branch>` checked out, if any. */
export async function worktreeOfBranch(cwd: string, branch: string): Promise<WorktreeInfo | null> {
  if (surelyNotCheckedOut(await commonDir(cwd), `refs/heads/${branch}`)) return null;
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
