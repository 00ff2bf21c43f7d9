// The repository's common dir read from its files, as git's discovery finds it, in the plain cases
// only: walking up from `cwd` (its real path, as git does) to the first `.git`, a folder (the main
// worktree) or a file naming the git dir of a linked worktree, whose `commondir` file names the
// common dir. `land status` then starts no `git rev-parse` (docs/development.md, start-up).
// Anything unusual gives null and git is asked as before, so its answers and errors stay git's own:
// a variable that steers git's discovery, a bare repository (or a folder in one), no `.git` at all, a `.git` that does
// not look like a repository, a file system boundary on the way up (git stops there), or a folder
// owned by another user (git refuses it unless safe.directory says otherwise).
import { readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Variables that change where git looks for the repository, or what it accepts. */
const STEERING = ['GIT_DIR', 'GIT_COMMON_DIR', 'GIT_WORK_TREE', 'GIT_CEILING_DIRECTORIES', 'GIT_DISCOVERY_ACROSS_FILESYSTEM'];

function statOf(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** Owned by the user running land (git's own ownership check then passes without safe.directory). */
function ownedHere(stats: Stats | null): boolean {
  return stats !== null && stats.uid === process.geteuid?.();
}

/**
 * A path a `.git` or `commondir` file names, resolved against `base` (its real path); null (ask
 * git) when a `..` step follows a named folder: git resolves symlinks before `..`, path.resolve by
 * the text, and past a symlink they differ. Leading `..` steps (a linked worktree's `../..`) go up
 * from a real path, where both agree.
 */
function namedPath(base: string, named: string): string | null {
  const steps = named.split(/[\\/]/).filter((step) => step !== '' && step !== '.');
  const firstNamed = steps.findIndex((step) => step !== '..');
  if (firstNamed >= 0 && steps.slice(firstNamed).includes('..')) return null;
  return resolve(realpathSync(base), named);
}

/** The git dir a `.git` file names (`gitdir: <path>`, relative to the file's folder), or null. */
function gitdirOfFile(file: string): string | null {
  const text = readFileSync(file, 'utf8');
  const match = /^gitdir: (.+?)\r?\n?$/.exec(text);
  return match?.[1] ? namedPath(dirname(file), match[1]) : null;
}

/** The common dir of a git dir: its `commondir` file's folder (a linked worktree's), else itself; null: ask git. */
function commonOf(gitDir: string): string | null {
  let named: string;
  try {
    named = readFileSync(join(gitDir, 'commondir'), 'utf8').replace(/\r?\n$/, ''); // git strips the line end only
  } catch {
    return gitDir;
  }
  return named ? namedPath(gitDir, named) : null;
}

/**
 * Whether `dir` looks like a repository to git: a HEAD in its git dir that names a ref or an object
 * (git looks further up past a `.git` whose HEAD is empty or torn), objects/ and refs/ in the common dir.
 */
function looksLikeRepository(gitDir: string, common: string): boolean {
  return validHead(join(gitDir, 'HEAD')) && statOf(join(common, 'objects'))?.isDirectory() === true && statOf(join(common, 'refs'))?.isDirectory() === true;
}

function validHead(file: string): boolean {
  if (statOf(file)?.isFile() !== true) return false;
  try {
    return /^(ref: refs\/\S+|[0-9a-f]{40}|[0-9a-f]{64})\r?\n?$/.test(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

/** The common dir of the repository holding the folder whose `.git` is `dotGit`, or null (ask git). */
function fromDotGit(folder: string, dotGit: string, stats: Stats): string | null {
  const gitDir = stats.isDirectory() ? dotGit : stats.isFile() ? gitdirOfFile(dotGit) : null;
  if (gitDir === null) return null;
  const common = commonOf(gitDir);
  if (common === null || !looksLikeRepository(gitDir, common)) return null;
  if (![folder, dotGit, gitDir, common].every((path) => ownedHere(statOf(path)))) return null;
  return realpathSync(common);
}

/** The absolute common dir of the repository containing `cwd`, or null when git must be asked. */
export function commonDirFromFiles(cwd: string): string | null {
  if (STEERING.some((name) => process.env[name] !== undefined)) return null;
  try {
    let folder = realpathSync(cwd);
    const device = statSync(folder).dev;
    for (;;) {
      const dotGit = join(folder, '.git');
      const stats = statOf(dotGit);
      if (stats) return fromDotGit(folder, dotGit, stats);
      // git takes a folder that is itself a git dir as a bare repository before looking further up.
      if (looksLikeRepository(folder, folder)) return null;
      const parent = dirname(folder);
      if (parent === folder || statSync(parent).dev !== device) return null;
      folder = parent;
    }
  } catch {
    return null; // unreadable on the way: git says what is wrong
  }
}
