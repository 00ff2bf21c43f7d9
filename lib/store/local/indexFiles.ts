// The index of active jobs and the branches' job lists: caches of the journal and the records
// (their shapes and rules: lib/store/activeIndex.ts). A write that fails is reported, not thrown:
// the cache stays behind and is caught up or rebuilt later.
import { existsSync, rmSync } from 'node:fs';
import { activeIndexSchema, branchJobsSchema, branchKey, type ActiveIndex } from '../activeIndex.js';
import { writeCacheFile } from '../atomic.js';
import type { StatePaths } from '../paths.js';
import { parseWith, readText } from './parse.js';

/** The index of active jobs; null when it is missing or unreadable (the caller rebuilds it). */
export function readIndex(paths: StatePaths): ActiveIndex | null {
  let text: string | null;
  try {
    text = readText(paths.index);
  } catch {
    return null;
  }
  if (text === null) return null;
  const parsed = parseWith(activeIndexSchema, text);
  return parsed.ok ? parsed.value : null;
}

/** Writes the index; false when it could not be (it stays behind the journal and is caught up later). */
export function writeIndex(paths: StatePaths, index: ActiveIndex): boolean {
  try {
    writeCacheFile(paths.index, `${JSON.stringify(index)}\n`);
    return true;
  } catch {
    return false;
  }
}

export function removeIndex(paths: StatePaths): void {
  rmSync(paths.index, { force: true });
}

/** Whether the branches' job lists exist (the folder: removed by hand, they are rebuilt). */
export function hasBranchLists(paths: StatePaths): boolean {
  return existsSync(paths.branchesDir);
}

/** The ids of every job of `branch` ([] when it has none); null when its list is unreadable. */
export function branchJobIds(paths: StatePaths, branch: string): string[] | null {
  let text: string | null;
  try {
    text = readText(paths.branchJobs(branchKey(branch)));
  } catch {
    return null;
  }
  if (text === null) return [];
  const parsed = parseWith(branchJobsSchema, text);
  return parsed.ok && parsed.value.branch === branch ? parsed.value.jobs : null;
}

/** Writes a branch's job list; false when it could not be. */
export function writeBranchJobs(paths: StatePaths, branch: string, ids: readonly string[]): boolean {
  try {
    writeCacheFile(paths.branchJobs(branchKey(branch)), `${JSON.stringify({ branch, jobs: ids })}\n`);
    return true;
  } catch {
    return false;
  }
}
