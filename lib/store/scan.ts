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
