// Restoring paths from another commit: the tree a train's gates see when its trusted paths
// (policy `trusted`) come from the target tip instead of the train. `restoredTree` writes that
// tree as an object without touching any checkout (a temporary index outside the repository);
// `checkoutTreeInWorktree` moves a clean worktree's files and index to it, HEAD staying where it is.
import type { PinnedWorktree } from './pinnedWorktree.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { changedPaths } from './diffNames.js';
import { git } from './run.js';

const ZERO = '0'.repeat(40);

/** One file of a tree, as `git ls-tree -r` lists it (blobs, symlinks and submodule entries). */
interface TreeEntry {
  mode: string;
  oid: string;
  path: string;
}

/** Every file of `treeish`, recursively. */
async function treeEntries(cwd: string, treeish: string): Promise<Map<string, TreeEntry>> {
  const out = await git(cwd, ['ls-tree', '-r', '-z', '--full-tree', treeish]);
  const entries = new Map<string, TreeEntry>();
  for (const line of out.split('\0')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const [mode, , oid] = line.slice(0, tab).split(' ');
    const path = line.slice(tab + 1);
    if (mode && oid) entries.set(path, { mode, oid, path });
  }
  return entries;
}

export interface RestoredTree {
  /** The tree with the selected paths as they are in `from` (equal to `tree` when none differ). */
  tree: string;
  /** The selected paths that differed: changed, added or deleted relative to `from`; sorted. */
  paths: string[];
}

/**
 * The tree `tree` would be once every path `select` accepts is restored from `from`: changed
 * files get `from`'s content and mode, files only in `tree` are removed, files only in `from` come
 * back. Paths `select` rejects are left as they are in `tree`. No worktree or index of the
 * repository is touched; a temporary index is used and removed.
 */
export async function restoredTree(cwd: string, tree: string, from: string, select: (path: string) => boolean): Promise<RestoredTree> {
  const paths = (await changedPaths(cwd, from, tree)).filter(select).sort();
  if (!paths.length) return { tree: await git(cwd, ['rev-parse', `${tree}^{tree}`]), paths };
  const source = await treeEntries(cwd, from);
  // Removals first: a restored file may sit where the train has a file of the same name as its folder.
  const lines = [
    ...paths.map((path) => `0 ${ZERO}\t${path}`),
    ...paths.flatMap((path) => {
      const entry = source.get(path);
      return entry ? [`${entry.mode} ${entry.oid}\t${entry.path}`] : [];
    }),
  ];
  const scratch = mkdtempSync(join(tmpdir(), 'land-index-'));
  try {
    const env = { GIT_INDEX_FILE: join(scratch, 'index') };
    await git(cwd, ['read-tree', tree], { env });
    await git(cwd, ['update-index', '-z', '--index-info'], { env, input: `${lines.join('\0')}\0` });
    return { tree: await git(cwd, ['write-tree'], { env }), paths };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Moves the files and index of `dir` (a clean worktree) from its HEAD to `tree`: changed files are
 * rewritten, files not in `tree` removed, missing ones added. HEAD does not move. Returns the tree
 * the index now holds (equal to `tree`).
 */
export async function checkoutTreeInWorktree(dir: string, tree: string, pinned?: PinnedWorktree): Promise<string> {
  const config = pinned?.config ?? [];
  const opts = pinned ? { env: pinned.env } : {};
  await git(dir, [...config, 'read-tree', '-m', '-u', 'HEAD', tree], opts);
  return git(dir, [...config, 'write-tree'], opts);
}
