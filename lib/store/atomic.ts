// Durable file writes for the state folder. A record is replaced by writing a temp file, fsyncing
// it, renaming it over the old one and fsyncing the folder, so a reader sees the old record or the
// new one, never half of one. A write that fails (a full disk) removes its temp file before the
// error goes on; a `kill -9` between write and rename leaves one that readers skip (TEMP_MARK) and
// the next drain start or queue-lock holder removes (removeStaleTempFiles).
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { checkWriteFailpoint, failpoint } from '../failpoint.js';
import { asNoSpace } from './noSpace.js';

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
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw asNoSpace(error, dir);
  }
}

/**
 * `durable: false` is for what may be lost in a power cut but never read half-written: cache
 * entries (verdicts, proofs, per-gate passes), whose readers take an unreadable entry for a miss,
 * and the landing token, void once its writer is gone. The rename keeps the write atomic; the two
 * fsyncs (each several ms on a busy disk, ten such writes per train) are skipped.
 */
export interface AtomicWrite {
  durable?: boolean;
  /** Not a state write the failpoints count (`enospc-write`, `tmp-before-rename`): see writeCacheFile. */
  uncounted?: boolean;
}

export function writeFileAtomic(path: string, content: string, opts: AtomicWrite = {}): void {
  const durable = opts.durable ?? true;
  const counted = !opts.uncounted;
  const dir = dirname(path);
  ensureDir(dir);
  const temp = join(dir, `${basename(path)}${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const fd = openSync(temp, 'w', 0o644);
    try {
      if (counted) checkWriteFailpoint(path); // as on a full disk: the open made a 0-byte file, the write fails
      writeSync(fd, content);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (counted) failpoint('tmp-before-rename');
    renameSync(temp, path);
  } catch (error) {
    // A full disk leaves no 0-byte temp file behind, and the old content stays whole.
    rmSync(temp, { force: true });
    throw asNoSpace(error, path);
  }
  if (durable) fsyncDir(dir);
}

/**
 * A cache file (the index of active jobs, a branch's job list): replaced by rename like a record,
 * so a reader never sees half, but not fsynced and not counted by the `enospc-write` failpoint. Its
 * readers check it against the journal and rebuild it when it is stale, so losing a write of it to
 * a crash or a full disk loses nothing (the caller ignores a failure).
 */
export function writeCacheFile(path: string, content: string): void {
  writeFileAtomic(path, content, { durable: false, uncounted: true });
}

export function writeJsonAtomic(path: string, value: unknown, opts: AtomicWrite = {}): void {
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`, opts);
}

/** A temp file's writer: `<name>.tmp-<pid>-<random>`; null when the name does not say. */
export function tempWriterPid(name: string): number | null {
  const match = /\.tmp-(\d+)-[0-9a-f]+$/.exec(name);
  return match ? Number(match[1]) : null;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A temp file older than this is stale whoever wrote it (a write takes milliseconds). */
export const STALE_TEMP_MS = 30_000;

/**
 * Removes temp files a killed writer left behind in `dir`: those whose writer process is gone,
 * and any older than STALE_TEMP_MS. A temp file of a live writer may be a write in flight and is
 * left alone until then. Returns the names removed.
 */
export function removeStaleTempFiles(dir: string, now = Date.now()): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names.filter((n) => n.includes(TEMP_MARK))) {
    const path = join(dir, name);
    const pid = tempWriterPid(name);
    let stale = pid === null || (pid !== process.pid && !pidAlive(pid));
    if (!stale) {
      try {
        stale = now - statSync(path).mtimeMs > STALE_TEMP_MS;
      } catch {
        continue; // gone meanwhile: renamed by its writer
      }
    }
    if (!stale) continue;
    rmSync(path, { force: true });
    removed.push(name);
  }
  return removed;
}
