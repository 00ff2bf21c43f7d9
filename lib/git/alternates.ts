// The object stores a repository borrows from (`objects/info/alternates`, as `git clone --shared`
// or `--reference` leaves it): a gate's sandbox must show them too, or git finds no objects.
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

/** The absolute folders listed in `<gitDir>/objects/info/alternates` (none when there is no such file). */
export function alternateObjectDirs(gitDir: string): string[] {
  const objects = join(gitDir, 'objects');
  let text: string;
  try {
    text = readFileSync(join(objects, 'info', 'alternates'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => (isAbsolute(line) ? line : resolve(objects, line)));
}
