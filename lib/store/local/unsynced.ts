// The mark of writes without fsync (unsynced.json, lib/store/formats/unsyncedMark.ts) and the
// fsyncs that end them. While a drain holds the mark, its job records and window.json are written
// without fsync (each still atomic: a reader sees the old file or the new one); at its end the
// drain fsyncs those it wrote and removes the mark.
import { closeSync, fsyncSync, openSync, rmSync } from 'node:fs';
import { fsyncDir, writeJsonAtomic } from '../atomic.js';
import { unsyncedMarkSchema, type UnsyncedMark } from '../formats/index.js';
import type { StatePaths } from '../paths.js';
import { parseWith, readText } from './parse.js';
import { readWindow } from './caches.js';

/**
 * The mark; null when there is none. One that does not parse (it is written whole, so only a
 * hand could make it so) names no boot and the whole journal: the next drain checks every record
 * the journal names.
 */
export function readUnsyncedMark(paths: StatePaths): UnsyncedMark | null {
  const text = readText(paths.unsynced);
  if (text === null) return null;
  const parsed = parseWith(unsyncedMarkSchema, text);
  return parsed.ok ? parsed.value : { bootId: '?', journalFrom: 0, pid: 0, since: '' };
}

/** Written and fsynced before any write it covers. */
export function writeUnsyncedMark(paths: StatePaths, mark: UnsyncedMark): void {
  writeJsonAtomic(paths.unsynced, mark);
}

export function removeUnsyncedMark(paths: StatePaths): void {
  rmSync(paths.unsynced, { force: true });
  fsyncDir(paths.root);
}

function fsyncFile(path: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(path, 'r');
    fsyncSync(fd);
  } catch {
    // gone (pruned, or never written): nothing to make durable
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** Makes the records of `ids` and window.json durable: each file, then their folders. */
export function syncRecords(paths: StatePaths, ids: readonly string[]): void {
  for (const id of ids) fsyncFile(paths.job(id));
  fsyncFile(paths.window);
  fsyncDir(paths.jobsDir);
  fsyncDir(paths.root);
}

/**
 * After a power cut: a window.json the cut left unreadable (zero bytes, or half written) is removed,
 * so the window starts again at \`batch.max\` instead of stopping every drain. Returns whether it was.
 */
export function dropUnreadableWindow(paths: StatePaths): boolean {
  try {
    readWindow(paths);
    return false;
  } catch {
    rmSync(paths.window, { force: true });
    fsyncDir(paths.root);
    return true;
  }
}
