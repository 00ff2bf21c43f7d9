// Links between the docs: GitHub's heading anchors, and every relative link of a page checked
// against the files beside it (a checkout, or an installed package: test/cli/package.test.ts).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown file's headings. */
export function anchorsOf(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => slug(line.replace(/^#+ /, '')));
}

/** Every relative link of the markdown file `page` (under `root`) that names a missing file or heading. */
export function brokenRelativeLinks(root: string, page: string): string[] {
  const text = readFileSync(join(root, page), 'utf8');
  const broken: string[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const link = match[1] as string;
    if (/^[a-z]+:/i.test(link)) continue; // https:, mailto:
    const [file, anchor] = link.split('#') as [string, string | undefined];
    const target = file ? join(root, dirname(page), file) : join(root, page);
    if (!existsSync(target)) broken.push(`${page}: ${link}: no such file`);
    else if (anchor && target.endsWith('.md') && !anchorsOf(target).includes(anchor)) broken.push(`${page}: ${link}: no such heading`);
  }
  return broken;
}
