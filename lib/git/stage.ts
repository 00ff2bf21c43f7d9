import { git } from './run.js';

/** Stages every change of a worktree, new and deleted files included (`git add -A`; .gitignore applies). */
export async function stageAll(dir: string): Promise<void> {
  await git(dir, ['add', '--all', '--', '.']);
}

/** Writes the worktree's index as a tree object and returns its id. */
export async function writeTreeOfIndex(dir: string): Promise<string> {
  return git(dir, ['write-tree']);
}
