// One ledger line: what a batch spent and what it produced, appended whole to
// `<ledger dir>/<job>.jsonl`. `version` changes only when a field changes meaning.
import { join } from 'node:path';
import type { BatchCounts } from './counts.js';
import { LEDGER_LINE_VERSION, type LedgerLine } from '../store/formats/ledgerLine.js';
import { assertJobName } from './jobName.js';

export { LEDGER_LINE_VERSION, ledgerLineSchema, type LedgerLine } from '../store/formats/ledgerLine.js';

/** The ledger file of a job; the name is checked before it becomes part of a path. */
export function ledgerFile(ledgerDir: string, job: string): string {
  return join(ledgerDir, `${assertJobName(job)}.jsonl`);
}

export interface LedgerLineInput {
  job: string;
  start: Date;
  end: Date;
  cpuSeconds: number;
  peakRssBytes: number | null;
  exitCode: number | null;
  signal: string | null;
  status: number;
  interruptedBy: string | null;
  host: string;
  gitHead: string | null;
  cwd: string;
  measureDir: string;
  counts: BatchCounts;
}

export function buildLedgerLine(input: LedgerLineInput): LedgerLine {
  const { start, end, cpuSeconds } = input;
  return {
    version: LEDGER_LINE_VERSION,
    job: input.job,
    track: input.job,
    start: start.toISOString(),
    end: end.toISOString(),
    wallSeconds: round((end.getTime() - start.getTime()) / 1000, 3),
    cpuSeconds: round(cpuSeconds, 3),
    cpuHours: round(cpuSeconds / 3600, 6),
    peakRssBytes: input.peakRssBytes,
    exitCode: input.exitCode,
    signal: input.signal,
    status: input.status,
    interruptedBy: input.interruptedBy,
    host: input.host,
    gitHead: input.gitHead,
    cwd: input.cwd,
    measureDir: input.measureDir,
    counts: { ...input.counts, timings: { ...input.counts.timings } },
  };
}

function round(n: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(n * scale) / scale;
}
