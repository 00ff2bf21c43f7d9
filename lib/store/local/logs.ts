// Train and job logs (logs/<id>.log) and the trains' worktree folders (trains/<id>). A train id
// is claimed by creating its log exclusively, so two drainers never share one.
import { closeSync, existsSync, openSync, readdirSync, rmSync } from 'node:fs';
import { ensureDir } from '../atomic.js';
import type { StatePaths } from '../paths.js';
import { readFrom, scanLines, type TextSlice } from '../scan.js';

/** Whether a train (or job) has a log file. */
export function hasLog(paths: StatePaths, id: string): boolean {
  return existsSync(paths.log(id));
}

/** A train's log from byte `offset` on (for printing it, or following it as it grows). */
export function readLogFrom(paths: StatePaths, id: string, offset = 0): TextSlice {
  return readFrom(paths.log(id), offset);
}

/** Every line of a train's log, read in one pass; false when there is no such log. */
export function scanLog(paths: StatePaths, id: string, onLine: (line: string) => void): boolean {
  if (!existsSync(paths.log(id))) return false;
  scanLines(
    paths.log(id),
    () => true,
    (line) => onLine(line),
  );
  return true;
}

/** The log file of a train or job (created empty on first use). */
export function logPath(paths: StatePaths, id: string): string {
  ensureDir(paths.logsDir);
  return paths.log(id);
}

/** `id`, or `id-2`, `id-3`... : the first that names no log yet (train ids are log names). */
export function freshLogId(paths: StatePaths, id: string): string {
  let candidate = id;
  for (let n = 2; existsSync(paths.log(candidate)); n += 1) candidate = `${id}-${n}`;
  return candidate;
}

/**
 * Claims the next train id of a batch, `<batch>-1`, `<batch>-2`, ..., by creating its log file
 * exclusively: every train has a log (a cached verdict says so in it), and two drainers can
 * never claim the same id.
 */
export function claimTrainId(paths: StatePaths, batchId: string): string {
  ensureDir(paths.logsDir);
  for (let n = 1; ; n += 1) {
    const id = `${batchId}-${n}`;
    try {
      closeSync(openSync(paths.log(id), 'wx'));
      return id;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

export function trainDir(paths: StatePaths, id: string): string {
  ensureDir(paths.trainsDir);
  return paths.train(id);
}

export function listTrainDirs(paths: StatePaths): string[] {
  try {
    return readdirSync(paths.trainsDir).map((name) => `${paths.trainsDir}/${name}`);
  } catch {
    return [];
  }
}

export function removeTrainDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
