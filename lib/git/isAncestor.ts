import { runGit } from './run.js';

/** True when `ancestor` is reachable from `descendant` (a commit is its own ancestor). */
export async function isAncestor(cwd: string, ancestor: string, descendant: string): Promise<boolean> {
  const result = await runGit(cwd, ['merge-base', '--is-ancestor', ancestor, descendant], { okCodes: [1] });
  return result.code === 0;
}
