import { runGit } from './run.js';

/**
 * True when a worktree's index and tracked files are exactly `commit`'s tree, whatever its HEAD
 * says: the state a checkout is left in when its branch moved and nobody updated it yet.
 */
export async function checkoutIsAt(dir: string, commit: string): Promise<boolean> {
  const index = await runGit(dir, ['diff-index', '--cached', '--quiet', commit, '--'], { okCodes: [1] });
  if (index.code !== 0) return false;
  await runGit(dir, ['update-index', '-q', '--refresh'], { okCodes: [1] }); // stat data only: a touched file is not a change
  const files = await runGit(dir, ['diff-files', '--quiet'], { okCodes: [1] });
  return files.code === 0;
}
