// Durable file writes for the state folder. A record is replaced by writing a temp file, fsyncing
// it, renaming it over the old one and fsyncing the folder, so a reader sees the old record or the
// new one, never half of one. A `kill -9` between write and rename leaves a temp file that readers
// skip (TEMP_MARK) and the next writer under the queue lock removes.
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

export const TEMP_MARK = '.tmp-';

export function fsyncDir(dir: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a directory; the rename itself is still atomic there.
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
}

export function writeFileAtomic(path: string, content: string): void {
  const dir = dirname(path);
  ensureDir(dir);
  const temp = join(dir, `${basename(path)}${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`);
  const fd = openSync(temp, 'w', 0o644);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  fsyncDir(dir);
}

export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Removes temp files a killed writer left behind. Call only while holding the queue lock. */
export function removeTempFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed = names.filter((name) => name.includes(TEMP_MARK));
  for (const name of removed) rmSync(join(dir, name), { force: true });
  return removed;
}
