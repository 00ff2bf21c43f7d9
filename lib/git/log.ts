import { git } from './run.js';

/**
 * `commit` and its first-parent ancestors, nearest first, at most `limit` of them (the history
 * of the target branch as it moved, one landing at a time). Shorter in a shallow clone.
 */
export async function firstParentChain(cwd: string, commit: string, limit: number): Promise<string[]> {
  const count = Math.max(1, Math.floor(limit));
  const out = await git(cwd, ['rev-list', '--first-parent', `--max-count=${count}`, '--end-of-options', commit]);
  return out.split('\n').filter((line) => line !== '');
}
