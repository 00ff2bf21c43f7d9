// Where a `--help` sends its reader: the docs page inside the package that is running, as an
// absolute path, so that it opens from anywhere: in a checkout (<checkout>/docs/...) and in an
// `npm install -g` of the tarball, which ships docs/ (package.json "files"). A page that is not
// there (a package built without its docs) is printed as its path in the repository.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { landPackageRoot } from '../landEntry.js';

function runningPackage(): string | null {
  try {
    return landPackageRoot();
  } catch {
    return null; // land's package.json is not above this module: nothing to point into
  }
}

/** `docs/commands.md#land-run` -> `<package>/docs/commands.md#land-run` when that file exists. */
export function docsPointer(page: string, root: string | null = runningPackage()): string {
  const file = page.split('#')[0] as string;
  return root !== null && existsSync(join(root, file)) ? join(root, page) : page;
}
