// One hold of a remote queue's lock: what the holder changed in the cache (to push, or to take
// back), recorded by RemoteStore's writes while it runs.
import type { RefUpdate } from '../../git/index.js';
import type { ActiveIndex } from '../activeIndex.js';
import type { JobRecord, JournalEntry } from '../formats/index.js';

export interface Transaction {
  before: Map<string, JobRecord | null>;
  after: Map<string, JobRecord>;
  entries: JournalEntry[];
  journalStart: number | null;
  index: { saved: boolean; value: ActiveIndex | null };
  branches: Map<string, string[] | null>;
  /** Writes of this drainer's own files (metrics, window), done once the push went through. */
  local: (() => void)[];
  /** The metrics rows appended (in `local`), which the push publishes (publish.ts). */
  rows: Record<string, unknown>[];
}

export interface TransactOptions {
  /** Refs moved in the same push (a landing's target), with their leases. */
  extra?: readonly RefUpdate[];
  /** A refused push is fetched and the holder run again (true); false: the race is reported (QueueRaced). */
  retry?: boolean;
  /**
   * Push the lease even when nothing else changed (the heartbeat); a function is asked under the
   * lock, so a heartbeat that waited behind a push that renewed the lease pushes nothing.
   */
  renew?: boolean | (() => boolean);
}

export function emptyTransaction(): Transaction {
  return {
    before: new Map(),
    after: new Map(),
    entries: [],
    journalStart: null,
    index: { saved: false, value: null },
    branches: new Map(),
    local: [],
    rows: [],
  };
}

export function renewAsked(renew: TransactOptions['renew']): boolean {
  return typeof renew === 'function' ? renew() : Boolean(renew);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Sleeps up to `ms`, returning early once `stop()` holds. */
export async function pauseUnless(ms: number, stop: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !stop()) await sleep(Math.min(100, deadline - Date.now()));
}

export function sleepUnless(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
