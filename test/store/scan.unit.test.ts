// One pass over a large journal for one job's lines; logs read by byte offset for a follower.
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localStore } from '../../lib/store/index.js';
import { readFrom, scanLines, scanLinesContaining } from '../../lib/store/scan.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';
import { appendJsonLine } from '../../lib/store/index.js';

afterAll(cleanupTempDirs);

function journalLine(job: string, n: number, event = 'requeued'): string {
  return JSON.stringify({
    at: `2026-01-01T00:00:00.${String(n % 1000).padStart(3, '0')}Z`,
    kind: 'transition',
    job,
    from: 'in_progress',
    to: 'queued',
    event,
    detail: { reason: 'bisected', n },
  });
}

describe('scanLines', () => {
  it('hands on every kept line whole, across chunk boundaries and multi-byte characters, with its number', () => {
    const dir = tempDir('land-scan-');
    const path = join(dir, 'big.jsonl');
    // Lines of varied length with a 3-byte character, so some straddle the 1 MiB chunk boundary.
    const lines = Array.from({ length: 30_000 }, (_, i) => `${i}:${'€'.repeat(i % 37)}${'x'.repeat(i % 53)}`);
    writeFileSync(path, `${lines.join('\n')}\nunterminated tail`);
    const seen: [string, number][] = [];
    const total = scanLines(
      path,
      (line) => line.startsWith('2') || line.startsWith('unterminated'),
      (line, n) => seen.push([line, n]),
    );
    expect(total).toBe(30_001);
    const expected = lines.map((line, i) => [line, i + 1] as [string, number]).filter(([line]) => line.startsWith('2'));
    expect(seen.slice(0, -1)).toEqual(expected);
    expect(seen.at(-1)).toEqual(['unterminated tail', 30_001]);
    expect(
      scanLines(
        join(dir, 'missing'),
        () => true,
        () => undefined,
      ),
    ).toBe(0);
  });
});

describe('scanLinesContaining', () => {
  it('hands on exactly the lines holding the marker, whole, across chunk boundaries, once each', () => {
    const dir = tempDir('land-scan-');
    const path = join(dir, 'journal.jsonl');
    // Every 7th line holds the marker (twice in some), lines straddle the 1 MiB chunk boundary,
    // multi-byte characters sit next to it, and the last line has no newline.
    const lines = Array.from({ length: 30_000 }, (_, i) =>
      i % 7 === 0 ? `${i}:${'€'.repeat(i % 37)}MARK${i % 14 === 0 ? 'x MARK' : ''}${'y'.repeat(i % 53)}` : `${i}:${'€'.repeat(i % 41)}${'z'.repeat(i % 59)}`,
    );
    // One line longer than two chunks, with the marker at its end.
    lines.splice(15_000, 0, `${'h'.repeat(2_500_000)}MARK`);
    writeFileSync(path, `${lines.join('\n')}\ntail MARK`);
    const seen: string[] = [];
    scanLinesContaining(path, 'MARK', (line) => seen.push(line));
    expect(seen).toEqual([...lines.filter((line) => line.includes('MARK')), 'tail MARK']);
    const none: string[] = [];
    scanLinesContaining(join(dir, 'missing'), 'MARK', (line) => none.push(line));
    scanLinesContaining(path, 'ABSENT', (line) => none.push(line));
    expect(none).toEqual([]);
  });
});

describe('QueueStore.readJournalOf', () => {
  it("picks one job's lines out of the journal of 10,000 jobs in one pass, skipping and numbering its corrupt lines", () => {
    const store = localStore(tempDir('land-journal-'));
    store.ensure();
    const jobs = Array.from({ length: 10_000 }, (_, i) => `j-20260101-${String(i + 1).padStart(5, '0')}`);
    const body: string[] = [];
    for (let round = 0; round < 6; round += 1) for (const job of jobs) body.push(journalLine(job, round));
    writeFileSync(store.paths.journal, `${body.join('\n')}\n`);
    // A torn line of the job, and one that is JSON but not a journal entry, then one more good line.
    appendFileSync(store.paths.journal, `{"at":"x","job":"j-20260101-04242",\n{"job":"j-20260101-04242"}\n${journalLine('j-20260101-04242', 7, 'landed')}\n`);
    const started = Date.now();
    const { entries, badLines } = store.readJournalOf('j-20260101-04242');
    const took = Date.now() - started;
    expect(entries).toHaveLength(7);
    expect(entries.every((entry) => entry.job === 'j-20260101-04242')).toBe(true);
    expect(entries.map((entry) => entry.detail.n)).toEqual([0, 1, 2, 3, 4, 5, 7]);
    expect(badLines).toEqual([60_001, 60_002]);
    // A job id that is a prefix of another's (j-...-0424 of j-...-04242) picks only its own.
    expect(store.readJournalOf('j-20260101-0424').entries).toHaveLength(0);
    expect(took).toBeLessThan(5_000);
  });
});

describe('QueueStore.readMetricsMatching', () => {
  it('returns the rows whose line names one of the needles, in file order', () => {
    const store = localStore(tempDir('land-metrics-'));
    store.ensure();
    appendJsonLine(store.paths.metrics, { train: 'b-1-1', batch: 'b-1', members: ['j-1'] });
    appendJsonLine(store.paths.metrics, { train: 'b-2-1', batch: 'b-2', members: ['j-2'] });
    appendFileSync(store.paths.metrics, '{"train":"b-1-9", torn\n');
    appendJsonLine(store.paths.metrics, { train: 'b-1-2', batch: 'b-1', members: ['j-3'] });
    const { rows, badLines } = store.readMetricsMatching(['b-1']);
    expect(rows.map((row) => row.train)).toEqual(['b-1-1', 'b-1-2']);
    expect(badLines).toEqual([3]);
    expect(store.readMetricsMatching([]).rows).toEqual([]);
  });
});

describe('readFrom', () => {
  it('reads what was appended since the last offset and never splits a character', () => {
    const path = join(tempDir('land-follow-'), 'train.log');
    expect(readFrom(path, 0)).toEqual({ text: '', next: 0, exists: false });
    writeFileSync(path, 'one\n');
    const first = readFrom(path, 0);
    expect(first).toEqual({ text: 'one\n', next: 4, exists: true });
    expect(readFrom(path, first.next).text).toBe('');
    // Half of a 3-byte character: held back until it is whole.
    const euro = Buffer.from('€');
    appendFileSync(path, Buffer.concat([Buffer.from('two '), euro.subarray(0, 2)]));
    const second = readFrom(path, first.next);
    expect(second.text).toBe('two ');
    appendFileSync(path, Buffer.concat([euro.subarray(2), Buffer.from('\n')]));
    const third = readFrom(path, second.next);
    expect(third.text).toBe('€\n');
    expect(third.next).toBe(4 + 4 + 3 + 1);
  });
});
