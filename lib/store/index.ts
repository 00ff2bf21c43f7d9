import { join } from 'node:path';
import { commonDir } from '../git/index.js';
import { LocalStore } from './localStore.js';
import type { QueueStore } from './queueStore.js';
import type { QueueRemote } from './remoteLayout.js';

export type { QueueStore, RefreshOptions, StateFolder, JobsAndJournal, ActiveIndexFiles, DrainerCaches, DrainerFiles, QueueKind } from './queueStore.js';
export type { CorruptRecord, JobListing, JobRead, ProtectHookRead } from './queueStore.js';
export type { SourcedRow, UnsyncedWrites } from './queueStore.js';
export type { LandingResult, LandOutcome, TokenIssuer, TrainLanding } from './landing.js';
export { withLandingToken } from './landing.js';
export type { PruneRequest, PruneResult, QueueView } from './queueKind.js';
export type { QueueRemote, Lease } from './remoteLayout.js';
export { assertSafeId } from './paths.js';
export { publishedTrainSchema } from './formats/published.js';
export { appendJsonLine, readJsonLines, countLines } from './jsonl.js';
export type { JsonLines } from './jsonl.js';
export { writeJsonAtomic, writeFileAtomic, ensureDir } from './atomic.js';
export type { DrainLease } from './lock.js';
export type { TokenRecord } from './landingToken.js';
export type { WaitForChangeOptions, WaitOutcome } from './watch.js';
export * from './formats/index.js';
export * from './activeIndex.js';

/**
 * The state folder of a repository whose git common dir is `gitDir`: every queue's files (a clone's
 * own, and the caches of queues kept in remotes) are under it.
 */
export function stateRoot(gitDir: string): string {
  return join(gitDir, 'land');
}

/**
 * The store of a state folder `root` as a clone's own queue, its layout not created (tests, bench
 * and tools that set a folder up by hand; `gitDir` defaults to the folder `root` is in).
 */
export function localStore(root: string, gitDir?: string): QueueStore {
  return new LocalStore(root, { gitDir });
}

/** The store of the repository that contains `cwd`: `<git common dir>/land/`. */
export async function openStore(cwd: string): Promise<QueueStore> {
  const gitDir = await commonDir(cwd);
  const store = new LocalStore(stateRoot(gitDir), { gitDir });
  store.ensure();
  return store;
}

/**
 * The store of the queue the commands work on: the clone's own (`queue` null), or the cache of a
 * queue kept in a git remote, brought up to date with one fetch (docs/remote.md).
 */
export async function openQueueStore(cwd: string, queue: Omit<QueueRemote, 'cwd'> | null): Promise<QueueStore> {
  if (!queue) return openStore(cwd);
  const gitDir = await commonDir(cwd);
  // A hold of the cache's lock lasts a fetch and a push (a second or more, not milliseconds), so
  // changes started together in one clone (a script submitting 20 branches at once) wait in line
  // for longer than a local queue's minute: up to about ten minutes. A dead holder's lock still
  // goes stale after 10 s.
  const cache = new LocalStore(join(stateRoot(gitDir), 'remote', encodeURIComponent(queue.remote)), { gitDir, queueLockRetries: 6000 });
  // Loaded here, not at the top: a clone's own queue (most commands, and every `land status` there)
  // never compiles the remote store's modules (docs/development.md, start-up).
  const { RemoteStore } = await import('./remoteStore.js');
  const store = new RemoteStore(cache, { ...queue, cwd });
  store.ensure();
  await store.refresh();
  return store;
}
