import { runGit } from './run.js';

/**
 * Names git surely accepts as a branch, decided without starting git: parts of letters, digits,
 * `_` and `-`, each starting with a letter, digit or `_`, joined by `/` or `.`, no part ending in
 * `.lock`, and not `HEAD`. Anything else (an `@`, a space, `..`, non-ASCII...) is asked of git.
 */
const PLAIN_BRANCH = /^(?!HEAD$)(?!.*\.lock(?:\/|$))[A-Za-z0-9_][A-Za-z0-9_-]*(?:[./][A-Za-z0-9_][A-Za-z0-9_-]*)*$/;

/** True when `name` is a plain branch name git accepts as it is (no git started to know it). */
export function isPlainBranchName(name: string): boolean {
  return PLAIN_BRANCH.test(name);
}

/**
 * True when git accepts `name` as a branch name (`git check-ref-format --branch`). `--branch` also
 * expands shorthands such as `@{-1}` and prints the result: only a name printed back unchanged is
 * a literal branch name. A plain name (the usual `main`, `feature/x-1`) is answered without git.
 */
export async function isValidBranchName(cwd: string, name: string): Promise<boolean> {
  if (name === '' || name.startsWith('-')) return false;
  if (isPlainBranchName(name)) return true;
  const result = await runGit(cwd, ['check-ref-format', '--branch', name], { okCodes: [1, 128] });
  return result.code === 0 && result.stdout.replace(/\n$/, '') === name;
}
