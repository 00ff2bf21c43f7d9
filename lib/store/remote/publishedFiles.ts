// The cache folder's copy of what drainers published (formats/published.ts), under published/:
// metrics/<drainer>.jsonl (the rows of each drainer's metrics ref, but this clone's own) and
// logs/<train>.log (each published log this clone's drainer did not write itself). Readers of a
// remote queue read them next to the cache's own metrics.jsonl and logs/ (RemoteStore).
import { appendFileSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDir, writeCacheFile } from '../atomic.js';
import type { JsonLines } from '../jsonl.js';
import { readMetricsFile, readMetricsMatchingIn, readMetricsTailOf } from '../local/metrics.js';
import { readFrom, scanLines, type TextSlice } from '../scan.js';
import { drainerIdSchema, publishedTrainSchema } from '../formats/published.js';
import type { JobRecord } from '../formats/index.js';
import { readPrunedJobsFile } from '../local/prune.js';

type Row = Record<string, unknown>;

/** Rows of several files in time order (`at`; a stable sort keeps each file's order among equals). */
export function byTime(rows: Row[]): Row[] {
  return byTimeOf(rows, (row) => row);
}

/** Items carrying a row, in the rows' time order (stable, as byTime). */
export function byTimeOf<T>(items: T[], rowOf: (item: T) => Row): T[] {
  const at = (item: T) => {
    const value = rowOf(item).at;
    return typeof value === 'string' ? value : '';
  };
  return items.sort((a, b) => (at(a) < at(b) ? -1 : at(a) > at(b) ? 1 : 0));
}

export class PublishedFiles {
  constructor(private readonly root: string) {}

  private get metricsDir(): string {
    return join(this.root, 'published', 'metrics');
  }

  private get logsDir(): string {
    return join(this.root, 'published', 'logs');
  }

  metricsFile(drainer: string): string {
    return join(this.metricsDir, `${drainerIdSchema.parse(drainer)}.jsonl`);
  }

  logFile(train: string): string {
    return join(this.logsDir, `${publishedTrainSchema.parse(train)}.log`);
  }

  /** The drainers whose rows are kept here. */
  drainers(): string[] {
    try {
      return readdirSync(this.metricsDir)
        .filter((name) => name.endsWith('.jsonl'))
        .map((name) => name.slice(0, -'.jsonl'.length))
        .filter((name) => drainerIdSchema.safeParse(name).success);
    } catch {
      return [];
    }
  }

  writeRows(drainer: string, rows: readonly Row[], mode: 'replace' | 'append'): void {
    const text = rows.map((row) => `${JSON.stringify(row)}\n`).join('');
    if (mode === 'replace') writeCacheFile(this.metricsFile(drainer), text);
    else if (text) {
      ensureDir(this.metricsDir);
      appendFileSync(this.metricsFile(drainer), text);
    }
  }

  /** published/pruned.jsonl: what `land gc` (any clone's) kept of the jobs it pruned (formats/prunedJob.ts). */
  get prunedFile(): string {
    return join(this.root, 'published', 'pruned.jsonl');
  }

  writePruned(jobs: readonly Row[], mode: 'replace' | 'append'): void {
    const text = jobs.map((job) => `${JSON.stringify(job)}\n`).join('');
    if (mode === 'replace') writeCacheFile(this.prunedFile, text);
    else if (text) {
      ensureDir(join(this.root, 'published'));
      appendFileSync(this.prunedFile, text);
    }
  }

  removePruned(): void {
    rmSync(this.prunedFile, { force: true });
  }

  readPruned(): JobRecord[] {
    return readPrunedJobsFile(this.prunedFile);
  }

  removeRows(drainer: string): void {
    rmSync(this.metricsFile(drainer), { force: true });
  }

  writeLog(train: string, text: string): void {
    writeCacheFile(this.logFile(train), text);
  }

  removeLog(train: string): void {
    rmSync(this.logFile(train), { force: true });
  }

  // ---- reading ----------------------------------------------------------------------------------

  readRows(): JsonLines<Row> {
    const rows = this.drainers().flatMap((drainer) => readMetricsFile(this.metricsFile(drainer)).rows);
    return { rows, badLines: [], tornTail: false };
  }

  readRowsTail(enough: (rows: Row[]) => boolean): Row[] {
    return this.drainers().flatMap((drainer) => readMetricsTailOf(this.metricsFile(drainer), enough));
  }

  readRowsMatching(needles: readonly string[]): Row[] {
    return this.drainers().flatMap((drainer) => readMetricsMatchingIn(this.metricsFile(drainer), needles).rows);
  }

  /** readRowsMatching's rows, each with the drainer whose metrics ref it came from. */
  readRowsMatchingFrom(needles: readonly string[]): { row: Row; drainer: string }[] {
    return this.drainers().flatMap((drainer) => readMetricsMatchingIn(this.metricsFile(drainer), needles).rows.map((row) => ({ row, drainer })));
  }

  hasLog(train: string): boolean {
    return publishedTrainSchema.safeParse(train).success && existsSync(this.logFile(train));
  }

  readLogFrom(train: string, offset: number): TextSlice {
    return readFrom(this.logFile(train), offset);
  }

  scanLog(train: string, onLine: (line: string) => void): boolean {
    if (!this.hasLog(train)) return false;
    scanLines(
      this.logFile(train),
      () => true,
      (line) => onLine(line),
    );
    return true;
  }
}
