// Train and job logs (logs/<id>.log) and the trains' worktree folders (trains/<id>). A train id
// is claimed by creating its log exclusively, so two drainers never share one.
import { chmodSync, closeSync, existsSync, lstatSync, openSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
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

/**
 * Gives the drainer back every folder under a train's worktree `dir`: a gate (untrusted) may have
 * left a folder it cannot list or empty (`chmod 000`), which `git clean` and a removal would fail
 * on. Each folder gets u+rwx; symlinks are never followed, and nothing outside `dir` is touched.
 */
export function reopenTrainDir(dir: string): void {
  let mode: number;
  try {
    const stat = lstatSync(dir);
    if (!stat.isDirectory()) return;
    mode = stat.mode & 0o7777;
    if ((mode & 0o700) !== 0o700) chmodSync(dir, mode | 0o700);
  } catch {
    return; // gone, or not ours: the removal says what is left
  }
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) reopenTrainDir(join(dir, name));
}

/** Removes a train's worktree folder; false when something of it is left (then the next drain's recovery tries again). */
export function removeTrainDir(dir: string): boolean {
  for (const attempt of [1, 2]) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return true;
    } catch {
      if (attempt === 1) reopenTrainDir(dir); // then once more
    }
  }
  return false;
}
