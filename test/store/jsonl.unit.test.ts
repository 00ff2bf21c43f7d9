// JSON Lines: a torn last line (a writer killed mid-write) is skipped and reported, and a line
// appended after it is not lost.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appendJsonLine, countLines, readJsonLines } from '../../lib/store/index.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

describe('jsonl', () => {
  it('appends whole lines and reads them back', () => {
    const path = join(tempDir(), 'nested', 'journal.jsonl');
    expect(readJsonLines(path)).toEqual({ rows: [], badLines: [], tornTail: false });
    expect(countLines(path)).toBe(0);
    appendJsonLine(path, { n: 1 });
    appendJsonLine(path, { n: 2, text: 'line\nbreak' });
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":2,"text":"line\\nbreak"}\n');
    expect(readJsonLines(path)).toEqual({ rows: [{ n: 1 }, { n: 2, text: 'line\nbreak' }], badLines: [], tornTail: false });
    expect(countLines(path)).toBe(2);
  });

  it('skips and reports a torn last line', () => {
    const path = join(tempDir(), 'journal.jsonl');
    appendJsonLine(path, { n: 1 });
    appendJsonLine(path, { n: 2 });
    appendFileSync(path, '{"n":3,"te');
    const read = readJsonLines(path);
    expect(read.rows).toEqual([{ n: 1 }, { n: 2 }]);
    expect(read.badLines).toEqual([3]);
    expect(read.tornTail).toBe(true);
    expect(countLines(path)).toBe(2);
  });

  it('reports a bad line in the middle and rows the parser refuses, keeping the rest', () => {
    const path = join(tempDir(), 'journal.jsonl');
    writeFileSync(path, '{"n":1}\nnot json\n{"m":2}\n{"n":3}\n');
    const read = readJsonLines(path, (raw) => ((raw as { n?: number }).n === undefined ? null : raw));
    expect(read.rows).toEqual([{ n: 1 }, { n: 3 }]);
    expect(read.badLines).toEqual([2, 3]);
    expect(read.tornTail).toBe(false);
  });

  it('does not lose a line appended after a torn one', () => {
    const path = join(tempDir(), 'journal.jsonl');
    appendJsonLine(path, { n: 1 });
    appendFileSync(path, '{"n":2,"te'); // the writer of n=2 was killed mid-write
    appendJsonLine(path, { n: 3 });
    const read = readJsonLines(path);
    expect(read.rows).toEqual([{ n: 1 }, { n: 3 }]);
    expect(read.badLines).toEqual([2]);
    expect(read.tornTail).toBe(false);
    expect(countLines(path)).toBe(3);
  });
});
