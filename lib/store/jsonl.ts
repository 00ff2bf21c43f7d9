// Append-only JSON Lines files (journal, metrics, ledgers). A line is written whole with one
// write() on an O_APPEND descriptor and fsynced; a reader skips a torn last line (a writer killed
// mid-write) and reports it instead of failing.
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { checkWriteFailpoint, die, failpointArmed } from '../failpoint.js';
import { ensureDir } from './atomic.js';
import { asNoSpace } from './noSpace.js';

export interface AppendOptions {
  /** Arms the `mid-journal-append` failpoint on this file: half the line is written, then the process dies. */
  journal?: boolean;
}

/** Writes all of `bytes` (writeSync may write fewer than asked). */
function writeAll(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
}

/** Appends one line; returns the file's size before it (where the line starts, a torn tail's newline aside). */
export function appendJsonLine(path: string, value: unknown, opts: AppendOptions = {}): number {
  ensureDir(dirname(path));
  const line = `${JSON.stringify(value)}\n`;
  let fd: number;
  try {
    fd = openSync(path, 'a+', 0o644);
  } catch (error) {
    throw asNoSpace(error, path);
  }
  let size: number | null = null;
  try {
    // After a torn last line (a writer killed mid-write) start on a fresh line, or this one
    // would be glued onto the torn one and lost with it.
    const before = fstatSync(fd).size;
    const last = Buffer.alloc(1);
    const torn = before > 0 && readSync(fd, last, 0, 1, before - 1) === 1 && last[0] !== 0x0a;
    size = before;
    const bytes = Buffer.from(torn ? `\n${line}` : line);
    checkWriteFailpoint(path); // as on a full disk: the open succeeded, the write fails
    if (opts.journal && failpointArmed('mid-journal-append')) {
      writeAll(fd, bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))));
      fsyncSync(fd);
      die('mid-journal-append');
    }
    writeAll(fd, bytes);
    fsyncSync(fd);
    return before;
  } catch (error) {
    // A full disk mid-line: cut the file back, so no half line is left for readers.
    try {
      if (size !== null) ftruncateSync(fd, size);
    } catch {
      // the reader skips a torn last line anyway
    }
    throw asNoSpace(error, path);
  } finally {
    closeSync(fd);
  }
}

/** Cuts a JSONL file back to `size` bytes (taking back a line whose companion write failed). */
export function truncateFile(path: string, size: number): void {
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, size);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export interface JsonLines<T> {
  rows: T[];
  /** 1-based numbers of lines that did not parse (a torn last line is one of them). */
  badLines: number[];
  tornTail: boolean;
}

export function readJsonLines<T = unknown>(path: string, parse: (value: unknown) => T | null = (v) => v as T): JsonLines<T> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { rows: [], badLines: [], tornTail: false };
    throw error;
  }
  const lines = text.split('\n');
  const tornTail = lines.length > 0 && lines[lines.length - 1] !== '';
  const rows: T[] = [];
  const badLines: number[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      const row = parse(JSON.parse(line));
      if (row === null) badLines.push(index + 1);
      else rows.push(row);
    } catch {
      badLines.push(index + 1);
    }
  });
  return { rows, badLines, tornTail };
}

/** Number of complete lines (ends with a newline) in a JSONL file; 0 when it does not exist. */
export function countLines(path: string): number {
  try {
    const text = readFileSync(path, 'utf8');
    let count = 0;
    for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) === 10) count += 1;
    return count;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}
