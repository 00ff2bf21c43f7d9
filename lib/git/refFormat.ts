import { runGit } from './run.js';

/** True when git accepts `name` as a branch name (`git check-ref-format --branch`). */
export async function isValidBranchName(cwd: string, name: string): Promise<boolean> {
  if (name === '' || name.startsWith('-')) return false;
  const result = await runGit(cwd, ['check-ref-format', '--branch', name], { okCodes: [1, 128] });
  return result.code === 0;
}
