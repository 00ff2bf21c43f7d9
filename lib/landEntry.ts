// Where land's own command-line entry (dist/bin/land.js) is, for a gate that runs `land batch` and
// for the hooks `land hooks install` writes. Found from the package root (the folder holding land's
// package.json), so it is the same whether this module runs from the bundle (a chunk under
// dist/bin/), from tsc's dist/lib/, or from the TypeScript sources under a test runner.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function isLandPackage(dir: string): boolean {
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) return false;
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'land';
  } catch {
    return false;
  }
}

function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (isLandPackage(dir)) return dir;
    if (dirname(dir) === dir) throw new Error(`land's package.json was not found above ${from}`);
  }
}

/** The folder of land's own package (its package.json). */
export function landPackageRoot(): string {
  return packageRoot(dirname(fileURLToPath(import.meta.url)));
}

/** The path of dist/bin/land.js, found when asked (a read of a package.json or two: nothing worth keeping). */
export function landEntry(): string {
  return join(landPackageRoot(), 'dist', 'bin', 'land.js');
}
