// The journal (journal.jsonl): one line a change, appended and fsynced before the record it
// announces. Readers scan it in one pass without holding it whole.
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { JOURNAL_TAIL_BYTES } from '../activeIndex.js';
import { appendJsonLine, readJsonLines, truncateFile, type JsonLines } from '../jsonl.js';
import { assertSafeId, type StatePaths } from '../paths.js';
import { scanLines, scanLinesContaining } from '../scan.js';
import { journalEntrySchema, type JournalEntry } from '../formats/index.js';
import { parseJsonLine } from './parse.js';

const parseEntry = (line: string) => parseJsonLine(line, (raw) => journalEntrySchema.safeParse(raw));

/** Appends a journal line; returns where it starts, for takeBackJournal. */
export function appendJournal(paths: StatePaths, entry: JournalEntry): number {
  return appendJsonLine(paths.journal, entry, { journal: true });
}

/**
 * Takes back the journal's last line, appended at `offset`, when the record write it announced
 * failed for lack of space: the journal and the records then agree that nothing happened. Only
 * under the queue lock (no other line can follow it). Best effort: a crash here leaves the line,
 * which recovery reads as a change whose record write never happened.
 */
export function takeBackJournal(paths: StatePaths, offset: number): void {
  try {
    truncateFile(paths.journal, offset);
  } catch {
    // the line stays: as after a crash between the two writes
  }
}

/** Whether the journal exists (a job was ever submitted here). */
export function hasJournal(paths: StatePaths): boolean {
  return existsSync(paths.journal);
}

/**
 * Every job id the journal names from byte `start` on (default: all of it), in order of first
 * mention (one pass; lines are not parsed whole).
 */
export function journaledJobIds(paths: StatePaths, start = 0): string[] {
  const ids = new Set<string>();
  scanLines(
    paths.journal,
    (line) => line.includes('"job":"'),
    (line) => {
      const id = /"job":"([a-z0-9-]{1,100})"/.exec(line)?.[1];
      if (id) ids.add(id);
    },
    start,
  );
  return [...ids];
}

/**
 * The journal's size, and the hex of its last JOURNAL_TAIL_BYTES bytes before `end` (default:
 * its end); `tail` is null when the journal is shorter than `end`. One open, one small read.
 */
export function journalMark(paths: StatePaths, end?: number): { size: number; tail: string | null } {
  let fd: number;
  try {
    fd = openSync(paths.journal, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return { size: 0, tail: (end ?? 0) === 0 ? '' : null };
  }
  try {
    const size = fstatSync(fd).size;
    const upTo = end ?? size;
    if (upTo > size) return { size, tail: null };
    const from = Math.max(0, upTo - JOURNAL_TAIL_BYTES);
    const bytes = Buffer.alloc(upTo - from);
    const read = readSync(fd, bytes, 0, bytes.length, from);
    return { size, tail: bytes.subarray(0, read).toString('hex') };
  } finally {
    closeSync(fd);
  }
}

export function readJournal(paths: StatePaths): JsonLines<JournalEntry> {
  return readJsonLines(paths.journal, (raw) => {
    const parsed = journalEntrySchema.safeParse(raw);
    return parsed.success ? parsed.data : null;
  });
}

/**
 * The journal lines of one job, in order, read in one pass over the file without holding it
 * whole (only lines that mention the id are parsed). `badLines` are the numbers of lines that
 * mention the id but do not parse: a torn or corrupt line, skipped.
 */
export function readJournalOf(paths: StatePaths, id: string): { entries: JournalEntry[]; badLines: number[] } {
  assertSafeId(id);
  const entries: JournalEntry[] = [];
  const badLines: number[] = [];
  scanLines(
    paths.journal,
    (line) => line.includes(id),
    (line, number) => {
      const entry = parseEntry(line);
      if (entry === null) badLines.push(number);
      else if (entry.job === id) entries.push(entry);
    },
  );
  return { entries, badLines };
}

/**
 * The journal lines that contain `marker`, in file order, in one pass without holding the file
 * whole; only those lines are decoded and parsed (`land stats` finds abandoned speculative
 * trains this way in a journal of 10,000 jobs).
 */
export function scanJournal(paths: StatePaths, marker: string): JournalEntry[] {
  const entries: JournalEntry[] = [];
  scanLinesContaining(paths.journal, marker, (line) => {
    const entry = parseEntry(line);
    if (entry) entries.push(entry);
  });
  return entries;
}

/** The journal lines of several jobs (by id, each oldest first), in one pass over the file (land reconcile's page). */
export function readJournalOfJobs(paths: StatePaths, ids: readonly string[]): Map<string, JournalEntry[]> {
  const wanted = new Set(ids);
  const byJob = new Map<string, JournalEntry[]>();
  if (!wanted.size) return byJob;
  scanLines(
    paths.journal,
    (line) => ids.some((id) => line.includes(id)),
    (line) => {
      const entry = parseEntry(line);
      if (!entry?.job || !wanted.has(entry.job)) return;
      const list = byJob.get(entry.job);
      if (list) list.push(entry);
      else byJob.set(entry.job, [entry]);
    },
  );
  return byJob;
}
