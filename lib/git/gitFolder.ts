// The repository's git folders, and the check that a path the user names for land to write
// (`land report --html`, `land repro --dir`) is outside them: a report written over a job record
// or over `.git/HEAD` would break the queue or the repository.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { LandError } from '../errors.js';
import { topLevel } from './repo.js';
import { git } from './run.js';

/**
 * The folders git keeps the repository in, as absolute paths: the common one (shared by every
 * worktree), this worktree's own (`<common>/worktrees/<name>` in a linked worktree) and the
 * `.git` entry at the top of the worktree (in a linked worktree a file that points at its own).
 */
export async function gitFolders(cwd: string): Promise<string[]> {
  const [out, top] = await Promise.all([git(cwd, ['rev-parse', '--path-format=absolute', '--git-common-dir', '--git-dir']), topLevel(cwd)]);
  const folders = out.split('\n').map((line) => resolve(cwd, line));
  if (top !== null) folders.push(join(resolve(cwd, top), '.git'));
  return [...new Set(folders)];
}

function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Where a write to the absolute `path` lands once symlinks are followed: the real path of the
 * nearest part that exists, with the rest appended. A dangling symlink is followed to where it
 * points (a writer that opens it would create the file there).
 */
export function landingPath(path: string, hops = 0): string {
  try {
    return realpathSync(path);
  } catch {
    // Missing, or a symlink to something missing.
  }
  try {
    if (hops < 40 && lstatSync(path).isSymbolicLink()) return landingPath(resolve(dirname(path), readlinkSync(path)), hops + 1);
  } catch {
    // Missing: its parent decides.
  }
  const parent = dirname(path);
  return parent === path ? path : join(landingPath(parent, hops), basename(path));
}

/** The git folder that holds `path` (itself, or through symlinks), or null when none does. */
export function gitFolderHolding(path: string, folders: readonly string[]): string | null {
  const real = landingPath(path);
  return folders.find((folder) => isInside(path, folder) || isInside(real, landingPath(folder))) ?? null;
}

/**
 * Refuses (usage) an output path inside the repository's git folder: `option` names the option
 * (`--html`), `path` is absolute (resolved against the working folder, `..` taken out).
 */
export async function assertOutsideGitFolder(cwd: string, path: string, option: string): Promise<void> {
  const folder = gitFolderHolding(path, await gitFolders(cwd));
  if (folder === null) return;
  throw new LandError('usage', `${option} ${path} is inside the repository's git folder (${folder}); name a path outside it`);
}
