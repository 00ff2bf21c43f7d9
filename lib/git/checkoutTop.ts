// The top of the checkout `cwd` is in, found as git finds it (the nearest folder upwards holding a
// `.git` entry) and checked to belong to the repository, without starting git: a drain asks for it
// once, beside every other start-up read (test/landing/gitSpawns.test.ts keeps their count).
import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The `.git` entry at `dir` names this repository (gitReal: its common dir, real path). */
function belongs(dir: string, gitReal: string): boolean {
  const entry = join(dir, '.git');
  const stat = lstatSync(entry);
  if (stat.isDirectory()) return realpathSync(entry) === gitReal;
  if (!stat.isFile()) return false;
  // A linked worktree (`gitdir: <common>/worktrees/<id>`) or a separate git dir (`gitdir: <common>`).
  const pointer = /^gitdir: (.+)$/m.exec(readFileSync(entry, 'utf8'))?.[1]?.trim();
  if (!pointer) return false;
  const target = realpathSync(resolve(dir, pointer));
  return target === gitReal || dirname(target) === join(gitReal, 'worktrees');
}

/** The checkout's top folder, or null (a bare repository, or nothing upwards that names it). */
export function checkoutTop(cwd: string, gitReal: string): string | null {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    try {
      if (belongs(dir, gitReal)) return dir;
    } catch {
      // no .git here (or unreadable): look further up
    }
    if (dirname(dir) === dir) return null;
  }
}
