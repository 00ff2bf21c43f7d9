import { runGit } from './run.js';

/** True when `ancestor` is reachable from `descendant` (a commit is its own ancestor). */
export async function isAncestor(cwd: string, ancestor: string, descendant: string): Promise<boolean> {
  const result = await runGit(cwd, ['merge-base', '--is-ancestor', ancestor, descendant], { okCodes: [1] });
  return result.code === 0;
}

/**
 * Like isAncestor, for ids read from a record that may be forged (a queue kept in a remote): an id
 * that names no commit here is not in `descendant` (false), instead of a failed git call.
 */
export async function isKnownAncestor(cwd: string, ancestor: string, descendant: string): Promise<boolean> {
  if (!/^[0-9a-f]{40,64}$/.test(ancestor)) return false;
  const result = await runGit(cwd, ['merge-base', '--is-ancestor', ancestor, descendant], { okCodes: [1, 128] });
  return result.code === 0;
}
