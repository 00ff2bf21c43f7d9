import { isAbsolute, resolve } from 'node:path';
import { LandError } from '../errors.js';
import { commonDirFromFiles } from './commonDirFromFiles.js';
import { git, GitError } from './run.js';

/**
 * The folder shared by every worktree of the repository (`.git` of the main worktree). Outside a
 * repository this is the usage error every command gives: "not inside a git repository: <dir>".
 */
export async function commonDir(cwd: string): Promise<string> {
  // Asked by several modules of one command (the store, the worktree lookup): git is asked once.
  const known = COMMON_DIRS.get(cwd);
  if (known) return known;
  // The plain cases from the repository's files, without a git process; git for anything else.
  const fromFiles = commonDirFromFiles(cwd);
  if (fromFiles !== null) {
    COMMON_DIRS.set(cwd, fromFiles);
    return fromFiles;
  }
  try {
    const out = await git(cwd, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
    const dir = isAbsolute(out) ? out : resolve(cwd, out);
    COMMON_DIRS.set(cwd, dir);
    return dir;
  } catch (error) {
    if (error instanceof GitError) throw notARepository(cwd, error);
    throw error;
  }
}

// Kept: which repository holds a folder does not change while land runs, and the git modules that
// need it (worktree removal per train, the hook check per landing) are given only `cwd`; asking git
// again would cost a process per train (test/landing/gitSpawns.test.ts). Only successes are kept.
const COMMON_DIRS = new Map<string, string>();

function notARepository(cwd: string, error: GitError): LandError {
  // git runs with LC_ALL=C, so its wording is stable; any other refusal (a repository owned by
  // someone else, a broken .git) is named with git's own first line.
  const said = error.stderr.trim().split('\n')[0] ?? '';
  if (error.exitCode === 128 && /not a git repository/i.test(said)) return new LandError('usage', `not inside a git repository: ${cwd}`);
  return new LandError('usage', `not a usable git repository: ${cwd} (${said.replace(/^fatal: /, '') || `git exited ${error.exitCode}`})`);
}

/** The top of the current worktree, or null in a bare repository. */
export async function topLevel(cwd: string): Promise<string | null> {
  try {
    return await git(cwd, ['rev-parse', '--show-toplevel']);
  } catch (error) {
    if (error instanceof GitError) return null;
    throw error;
  }
}

/** The branch checked out in `cwd`, or null on a detached HEAD. */
export async function currentBranch(cwd: string): Promise<string | null> {
  const result = await git(cwd, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { okCodes: [1] });
  return result === '' ? null : result;
}

/** A git config value of the repository, or null when unset. */
export async function configGet(cwd: string, key: string): Promise<string | null> {
  const value = await git(cwd, ['config', '--get', key], { okCodes: [1] });
  return value === '' ? null : value;
}

/** Who is running land, for records of who changed something: git user.email, else user.name, else $USER. */
export async function userIdentity(cwd: string): Promise<string> {
  return (await configGet(cwd, 'user.email')) ?? (await configGet(cwd, 'user.name')) ?? process.env.USER ?? 'unknown';
}

/** Sets a git config value of the repository (its own config file, not the user's). */
export async function configSet(cwd: string, key: string, value: string): Promise<void> {
  await git(cwd, ['config', '--local', '--end-of-options', key, value]);
}

/**
 * The branch `remote`'s HEAD names in this clone (`refs/remotes/<remote>/HEAD`, set by `git clone`
 * or `git remote set-head`): the remote's default branch, or null when it is not recorded.
 */
export async function remoteDefaultBranch(cwd: string, remote: string): Promise<string | null> {
  const ref = await git(cwd, ['symbolic-ref', '--quiet', `refs/remotes/${remote}/HEAD`], { okCodes: [1] });
  const prefix = `refs/remotes/${remote}/`;
  return ref.startsWith(prefix) ? ref.slice(prefix.length) : null;
}
