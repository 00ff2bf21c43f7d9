// Reading and appending a job's ledger file. Appends go through appendJsonLine (one write on an
// O_APPEND descriptor, then fsync); a reader skips a torn last line and says so.
import { appendJsonLine, countLines, readJsonLines } from '../store/jsonl.js';
import { ledgerFile, ledgerLineSchema, type LedgerLine } from './ledgerLine.js';

export type AppendOutcome = { kind: 'written'; path: string } | { kind: 'failed'; path: string; reason: string };

export function appendLedgerLine(ledgerDir: string, line: LedgerLine): AppendOutcome {
  const path = ledgerFile(ledgerDir, line.job);
  try {
    appendJsonLine(path, line);
    return { kind: 'written', path };
  } catch (error) {
    return { kind: 'failed', path, reason: (error as Error).message };
  }
}

/** Complete lines in the job's ledger file; 0 when it is missing or cannot be read. */
export function ledgerLineCount(ledgerDir: string, job: string): number {
  try {
    return countLines(ledgerFile(ledgerDir, job));
  } catch {
    return 0;
  }
}

export interface LedgerRead {
  path: string;
  lines: LedgerLine[];
  /** 1-based numbers of lines that are not ledger lines of this format (a torn tail is one). */
  badLines: number[];
  tornTail: boolean;
}

export function readLedger(ledgerDir: string, job: string): LedgerRead {
  const path = ledgerFile(ledgerDir, job);
  const { rows, badLines, tornTail } = readJsonLines(path, (value) => {
    const parsed = ledgerLineSchema.safeParse(value);
    return parsed.success ? parsed.data : null;
  });
  return { path, lines: rows, badLines, tornTail };
}

/** The latest line of `job` whose batch started at or after `since` (ISO time), or null. */
export function findLedgerLine(ledgerDir: string, job: string, since: string): LedgerLine | null {
  const from = Date.parse(since);
  if (Number.isNaN(from)) throw new RangeError(`not a time: ${JSON.stringify(since)}`);
  const { lines } = readLedger(ledgerDir, job);
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = lines[i] as LedgerLine;
    if (Date.parse(line.start) >= from) return line;
  }
  return null;
}
