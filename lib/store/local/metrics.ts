// metrics.jsonl: one row a train, appended by the drainer that ran it. Readers read all of it,
// its tail (the latest trains), or the rows that name given ids.
import { statSync } from 'node:fs';
import { appendJsonLine, readJsonLines, type JsonLines } from '../jsonl.js';
import type { StatePaths } from '../paths.js';
import { readFrom, scanLines } from '../scan.js';
import { isRecord, type WrittenMetricsRow } from '../formats/index.js';
import { parseJsonLine } from './parse.js';

/** A line as read: any JSON object; its readers check its fields (lib/store/formats/metricsRow.ts). */
type Row = Record<string, unknown>;

/** A JSON line that holds an object. */
const objectLine = (raw: unknown): { success: true; data: Row } | { success: false } => (isRecord(raw) ? { success: true, data: raw } : { success: false });

const parseRow = (line: string) => parseJsonLine(line, objectLine);

export function appendMetric(paths: StatePaths, row: WrittenMetricsRow): void {
  appendJsonLine(paths.metrics, row);
}

/** Every line of metrics.jsonl that holds an object. */
export function readMetrics(paths: StatePaths): JsonLines<Row> {
  return readMetricsFile(paths.metrics);
}

/** Every line of a file of metrics rows (metrics.jsonl, or a drainer's published rows) that holds an object. */
export function readMetricsFile(path: string): JsonLines<Row> {
  return readJsonLines(path, (raw) => (isRecord(raw) ? raw : null));
}

/**
 * The rows of metrics.jsonl from byte `offset` on, whole lines only, and the byte their reading
 * ended at (a drainer publishing the rows it has not yet published, lib/store/remote/publish.ts).
 */
export function readMetricsFrom(paths: StatePaths, offset: number): { rows: Row[]; end: number } {
  const slice = readFrom(paths.metrics, offset, Number.MAX_SAFE_INTEGER);
  const complete = slice.text.slice(0, slice.text.lastIndexOf('\n') + 1);
  const rows = complete.split('\n').flatMap((line) => {
    const row = parseRow(line);
    return row ? [row] : [];
  });
  return { rows, end: offset + Buffer.byteLength(complete) };
}

/** The size of metrics.jsonl in bytes (0 when there is none). */
export function metricsSize(paths: StatePaths): number {
  try {
    return statSync(paths.metrics).size;
  } catch {
    return 0;
  }
}

/**
 * The last rows of metrics.jsonl (in file order), read from its end in growing chunks until
 * `enough(rows)` holds or the start is reached: `land status` needs the latest trains only.
 */
export function readMetricsTail(paths: StatePaths, enough: (rows: Row[]) => boolean): Row[] {
  return readMetricsTailOf(paths.metrics, enough);
}

export function readMetricsTailOf(path: string, enough: (rows: Row[]) => boolean): Row[] {
  const size = (() => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  })();
  for (let span = 1 << 16; ; span *= 4) {
    const from = Math.max(0, size - span);
    const lines = readFrom(path, from, size - from).text.split('\n');
    if (from > 0) lines.shift(); // cut mid-line
    const rows = lines.flatMap((line) => {
      const row = parseRow(line);
      return row ? [row] : [];
    });
    if (from === 0 || enough(rows)) return rows;
  }
}

/**
 * Metrics rows whose line contains one of `needles` (train or batch ids, job ids), in file
 * order, read in one pass; the caller checks the fields it needs.
 */
export function readMetricsMatching(paths: StatePaths, needles: readonly string[]): { rows: Row[]; badLines: number[] } {
  return readMetricsMatchingIn(paths.metrics, needles);
}

export function readMetricsMatchingIn(path: string, needles: readonly string[]): { rows: Row[]; badLines: number[] } {
  const rows: Row[] = [];
  const badLines: number[] = [];
  if (!needles.length) return { rows, badLines };
  scanLines(
    path,
    (line) => needles.some((needle) => line.includes(needle)),
    (line, number) => {
      const row = parseRow(line);
      if (row === null) badLines.push(number);
      else rows.push(row);
    },
  );
  return { rows, badLines };
}
