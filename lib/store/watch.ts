// Waiting for the job records to change, for `land run --watch`. fs.watch on the jobs folder
// wakes the waiter at once; a poll of the folder's listing (names, inodes, sizes, mtimes) every
// couple of seconds catches what fs.watch misses on file systems where it is unreliable (network
// mounts, some containers), and is the only mechanism when polling is forced.
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { TEMP_MARK } from './atomic.js';

/** Every record is written to a temp file and renamed: a rewrite changes its inode and mtime. */
export function jobsFolderVersion(dir: string): string {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  const parts: string[] = [];
  for (const name of names.sort()) {
    if (!name.endsWith('.json') || name.includes(TEMP_MARK)) continue;
    try {
      const stat = statSync(join(dir, name), { bigint: true });
      parts.push(`${name}:${stat.ino}:${stat.size}:${stat.mtimeNs}`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // removed meanwhile
    }
  }
  return parts.join('\n');
}

export interface WaitForChangeOptions {
  /** The version the caller last saw (`jobsVersion()`); a change since then resolves at once. */
  since: string;
  /** Aborting ends the wait with `aborted`. */
  signal?: AbortSignal;
  /** Give up after this long (`timeout`); none: wait until a change or the signal. */
  timeoutMs?: number | null;
  /** Poll only, never fs.watch (LAND_WATCH_POLL=1). */
  poll?: boolean;
  /** How often the listing is polled; default 2000 ms. */
  pollMs?: number;
}

export type WaitOutcome = { kind: 'changed'; by: 'watch' | 'poll' } | { kind: 'timeout' } | { kind: 'aborted' };

export const DEFAULT_POLL_MS = 2000;

export function waitForJobsChange(dir: string, opts: WaitForChangeOptions): Promise<WaitOutcome> {
  return new Promise<WaitOutcome>((resolve) => {
    let watcher: FSWatcher | null = null;
    let pollTimer: NodeJS.Timeout | null = null;
    let deadline: NodeJS.Timeout | null = null;
    let settled = false;
    const finish = (outcome: WaitOutcome) => {
      if (settled) return;
      settled = true;
      watcher?.close();
      if (pollTimer) clearInterval(pollTimer);
      if (deadline) clearTimeout(deadline);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onAbort = () => finish({ kind: 'aborted' });
    const check = (by: 'watch' | 'poll') => {
      if (settled) return;
      let version: string | null;
      try {
        version = jobsFolderVersion(dir);
      } catch {
        version = null; // unreadable: wake the caller, whose own listing reports the error
      }
      if (version !== opts.since) finish({ kind: 'changed', by });
    };
    if (opts.signal?.aborted) return finish({ kind: 'aborted' });
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (!opts.poll) {
      try {
        // A temp file's creation fires too: the version ignores temp files, so only the rename wakes.
        watcher = watch(dir, { persistent: true }, () => check('watch'));
        watcher.on('error', () => {
          watcher?.close(); // the folder went away or the watch broke: the poll carries on alone
          watcher = null;
        });
      } catch {
        watcher = null; // no inotify watches left, or an unsupported file system: poll only
      }
    }
    pollTimer = setInterval(() => check('poll'), opts.pollMs ?? DEFAULT_POLL_MS);
    if (opts.timeoutMs !== undefined && opts.timeoutMs !== null) deadline = setTimeout(() => finish({ kind: 'timeout' }), Math.max(0, opts.timeoutMs));
    check('poll'); // a change between `since` and the watcher's start
  });
}
