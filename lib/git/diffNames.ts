import { git } from './run.js';

/** Paths that differ between two commits or trees. */
export async function changedPaths(cwd: string, from: string, to: string): Promise<string[]> {
  const out = await git(cwd, ['diff-tree', '-r', '--name-only', '-z', '--no-renames', from, to]);
  return out.split('\0').filter((path) => path !== '');
}
