// The drain's folder for ssh master sockets (executors/connectionReuse.ts): a long drain whose
// folder was removed (a /tmp cleaner) gets a new one instead of failing every ssh it starts.
import { existsSync, rmSync, statSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { controlDirStill, openControlDir } from '../../../lib/landing/executors/connectionReuse.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it('keeps the folder while it is there, and makes a new private one once it was removed', () => {
  const dir = openControlDir();
  expect(dir).not.toBeNull();
  made.push(dir as string);
  expect(controlDirStill(dir as string)).toBe(dir);
  rmSync(dir as string, { recursive: true });
  const again = controlDirStill(dir as string);
  expect(again).not.toBeNull();
  made.push(again as string);
  expect(again).not.toBe(dir);
  expect(existsSync(again as string)).toBe(true);
  expect(statSync(again as string).mode & 0o777).toBe(0o700);
});
