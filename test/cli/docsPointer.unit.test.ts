// `--help`'s "Docs:" line: the page in the running package (a checkout here), anchor kept; a page
// the package does not hold, or no package found, prints the repository path as it is.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { docsPointer } from '../../lib/cli/docsPointer.js';

/** This checkout: the package the test's modules run from. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

it("points into the package's docs/ when the page is there, else prints the repository path", () => {
  expect(docsPointer('docs/commands.md#land-run', ROOT)).toBe(join(ROOT, 'docs', 'commands.md#land-run'));
  expect(docsPointer('docs/README.md')).toBe(join(ROOT, 'docs', 'README.md'));
  expect(docsPointer('docs/nowhere.md#x', ROOT)).toBe('docs/nowhere.md#x');
  expect(docsPointer('docs/README.md', null)).toBe('docs/README.md');
});
