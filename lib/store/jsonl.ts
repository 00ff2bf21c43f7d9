// Append-only JSON Lines files (journal, metrics, ledgers). A line is written whole with one
// write() on an O_APPEND descriptor and fsynced; a reader skips a torn last line (a writer killed
// mid-write) and reports it instead of failing.
import { closeSync, fstatSync, fsyncSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensureDir } from './atomic.js';

export function appendJsonLine(path: string, value: unknown): void {
  ensureDir(dirname(path));
  const line = `${JSON.stringify(value)}\n`;
  const fd = openSync(path, 'a+', 0o644);
  try {
    // After a torn last line (a writer killed mid-write) start on a fresh line, or this one
    // would be glued onto the torn one and lost with it.
    const { size } = fstatSync(fd);
    const last = Buffer.alloc(1);
    const torn = size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
    writeSync(fd, torn ? `\n${line}` : line);
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
