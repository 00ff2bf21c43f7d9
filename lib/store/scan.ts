// Reading a large append-only file once, in fixed-size chunks, without holding it whole: the
// journal of ten thousand jobs is scanned for one job's lines. A cheap text test picks the lines
// worth parsing; only those are decoded and handed on. Log files are read by byte offset so a
// follower (`land log -f`) reads only what was appended since it last looked.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const CHUNK = 1 << 20;

function openOrNull(path: string): number | null {
  try {
    return openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Calls `onLine(text, number)` for every line (1-based numbers) whose text passes `keep`; the
 * last line is passed too when it has no newline (a torn tail the caller's parser rejects).
 * Returns the number of lines in the file; 0 when it does not exist. With `start`, reading begins at
 * that byte (numbers then count from there).
 */
export function scanLines(path: string, keep: (line: string) => boolean, onLine: (line: string, number: number) => void, start = 0): number {
  const fd = openOrNull(path);
  if (fd === null) return 0;
  const buffer = Buffer.alloc(CHUNK);
  let carry: Buffer = Buffer.alloc(0);
  let number = 0;
  let position = start;
  const emit = (bytes: Buffer) => {
    number += 1;
    const text = bytes.toString('utf8');
    if (keep(text)) onLine(text, number);
  };
  try {
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK, position);
      if (read === 0) break;
      position += read;
      const data = carry.length ? Buffer.concat([carry, buffer.subarray(0, read)]) : buffer.subarray(0, read);
      let start = 0;
      for (let nl = data.indexOf(0x0a, start); nl !== -1; nl = data.indexOf(0x0a, start)) {
        emit(data.subarray(start, nl));
        start = nl + 1;
      }
      // Copy the unfinished line: `buffer` is reused by the next read.
      carry = Buffer.from(data.subarray(start));
    }
    if (carry.length) emit(carry);
  } finally {
    closeSync(fd);
  }
  return number;
}

/**
 * Calls `onLine` with each line of the file that contains `marker`, in order. The marker is found
 * in the raw bytes (Buffer.indexOf), so the lines without it are never decoded: a scan of a 14 MB
 * journal for a rare word costs milliseconds, not a string per line.
 */
export function scanLinesContaining(path: string, marker: string, onLine: (line: string) => void): void {
  const fd = openOrNull(path);
  if (fd === null) return;
  const needle = Buffer.from(marker, 'utf8');
  let buffer = Buffer.alloc(CHUNK);
  let filled = 0; // the unfinished line kept at the front of the buffer
  let position = 0;
  try {
    for (;;) {
      if (filled === buffer.length) {
        const bigger = Buffer.alloc(buffer.length * 2); // one line longer than the buffer
        buffer.copy(bigger, 0, 0, filled);
        buffer = bigger;
      }
      const read = readSync(fd, buffer, filled, buffer.length - filled, position);
      if (read === 0) break;
      position += read;
      const end = filled + read;
      const whole = buffer.subarray(0, end).lastIndexOf(0x0a) + 1; // the complete lines read so far
      emitContaining(buffer.subarray(0, whole), needle, onLine);
      buffer.copyWithin(0, whole, end); // no copy of the whole chunk: only its unfinished line moves
      filled = end - whole;
    }
    if (filled) emitContaining(buffer.subarray(0, filled), needle, onLine);
  } finally {
    closeSync(fd);
  }
}

/** The lines of `data` (complete lines, or a last line without its newline) that hold `needle`. */
function emitContaining(data: Buffer, needle: Buffer, onLine: (line: string) => void): void {
  let from = 0;
  for (let hit = data.indexOf(needle, from); hit !== -1; hit = data.indexOf(needle, from)) {
    const start = hit === 0 ? 0 : data.lastIndexOf(0x0a, hit - 1) + 1;
    const newline = data.indexOf(0x0a, hit);
    const end = newline === -1 ? data.length : newline;
    onLine(data.subarray(start, end).toString('utf8'));
    from = end + 1;
    if (from >= data.length) break;
  }
}

export interface TextSlice {
  /** The bytes from `offset` to the end of the file, decoded (an unfinished UTF-8 character is left for the next read). */
  text: string;
  /** Where the next read should start. */
  next: number;
  exists: boolean;
}

/** What a file holds from byte `offset` on, up to `limit` bytes. */
export function readFrom(path: string, offset: number, limit = 16 * CHUNK): TextSlice {
  const fd = openOrNull(path);
  if (fd === null) return { text: '', next: offset, exists: false };
  try {
    const size = fstatSync(fd).size;
    if (size <= offset) return { text: '', next: Math.min(size, offset), exists: true };
    const length = Math.min(size - offset, limit);
    const bytes = Buffer.alloc(length);
    const read = readSync(fd, bytes, 0, length, offset);
    let end = read;
    // Do not split a multi-byte character: stop before an unfinished one.
    let back = 0;
    while (back < 4 && end - back - 1 >= 0 && ((bytes[end - back - 1] as number) & 0xc0) === 0x80) back += 1;
    const lead = end - back - 1 >= 0 ? (bytes[end - back - 1] as number) : 0;
    const needs = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (needs > back + 1 && end - back - 1 >= 0) end = end - back - 1;
    return { text: bytes.subarray(0, end).toString('utf8'), next: offset + end, exists: true };
  } finally {
    closeSync(fd);
  }
}
