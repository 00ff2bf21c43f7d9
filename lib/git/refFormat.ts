import { runGit } from './run.js';

/**
 * True when git accepts `name` as a branch name (`git check-ref-format --branch`). `--branch` also
 * expands shorthands such as `@{-1}` and prints the result: only a name printed back unchanged is
 * a literal branch name.
 */
export async function isValidBranchName(cwd: string, name: string): Promise<boolean> {
  if (name === '' || name.startsWith('-')) return false;
  const result = await runGit(cwd, ['check-ref-format', '--branch', name], { okCodes: [1, 128] });
  return result.code === 0 && result.stdout.replace(/\n$/, '') === name;
}
