// The host's side of a sandbox: which system folders exist (and which are symlinks, as on a
// merged-/usr system), the folders of the tools a gate runs, and one run's private /tmp and HOME.
import { lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { SystemEntry } from './plan.js';

/** Shown read-only in every sandbox when they exist: the system's programs, libraries and settings. */
const SYSTEM_FOLDERS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/sys'];

/** The system folders of this machine, each a folder or a symlink. */
export function systemEntries(): SystemEntry[] {
  const entries: SystemEntry[] = [];
  for (const path of SYSTEM_FOLDERS) {
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) entries.push({ path, kind: 'symlink', target: readlinkSync(path) });
      else if (stat.isDirectory()) entries.push({ path, kind: 'dir' });
    } catch {
      // not on this machine
    }
  }
  return entries;
}

/** `path` is `folder` or inside it. */
export function within(path: string, folder: string): boolean {
  const root = resolve(folder);
  const p = resolve(path);
  return p === root || p.startsWith(root === sep ? root : root + sep);
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The folders of the tools a gate runs, read-only: every absolute folder on PATH, the Node that
 * runs land (its bin folder, and its prefix for npm) and land's own package (a batch stage runs
 * `land batch`); those the system folders already show, or inside another one, left out. A folder
 * that holds one of `privateFolders` (the drainer's HOME, /tmp, the repository) is never shown: a
 * PATH entry of `/` or `~`, or Node installed as `~/bin/node`, must not show the drainer's home.
 */
export function toolFolders(env: NodeJS.ProcessEnv, extra: readonly string[], privateFolders: readonly string[]): string[] {
  const node = dirname(process.execPath);
  const candidates = [...(env.PATH ?? '').split(delimiter), node, dirname(node), ...extra].filter((dir) => isAbsolute(dir) && isFolder(dir));
  const shown = SYSTEM_FOLDERS.filter((dir) => dir !== '/sys');
  const kept = [...new Set(candidates.map((dir) => resolve(dir)))].filter((dir) => !privateFolders.some((folder) => within(folder, dir)));
  const outside = kept.filter((dir) => !shown.some((sys) => within(dir, sys)));
  return outside.filter((dir) => !outside.some((other) => other !== dir && within(dir, other))).sort();
}

/** One run's private /tmp and HOME on the host (HOME holds a git identity, nothing else). */
export interface Scratch {
  root: string;
  tmp: string;
  home: string;
}

const GIT_IDENTITY = '[user]\n\tname = land gate\n\temail = gate@land.invalid\n';

export function makeScratch(): Scratch {
  const root = mkdtempSync(join(tmpdir(), 'land-sandbox-'));
  const scratch = { root, tmp: join(root, 'tmp'), home: join(root, 'home') };
  mkdirSync(scratch.tmp, { mode: 0o700 });
  mkdirSync(scratch.home, { mode: 0o700 });
  writeFileSync(join(scratch.home, '.gitconfig'), GIT_IDENTITY);
  return scratch;
}

/** Removes a run's scratch; what the gate left there goes too. Never throws. */
export function removeScratch(scratch: Scratch): void {
  try {
    rmSync(scratch.root, { recursive: true, force: true });
  } catch {
    // a leftover in the temp folder is not worth failing a gate for
  }
}
