import { join } from 'node:path';
import { commonDir } from '../git/index.js';
import { FileStore } from './fileStore.js';
import type { QueueRemote } from './remoteLayout.js';
import { RemoteStore } from './remoteStore.js';

export { FileStore } from './fileStore.js';
export { RemoteStore, QueueRaced, remoteError } from './remoteStore.js';
export type { TransactOptions } from './remoteStore.js';
export type { LandingPush, QueueView } from './queueKind.js';
export type { QueueRemote, Lease } from './remoteLayout.js';
export type { CorruptRecord, JobListing, JobRead } from './fileStore.js';
export { assertSafeId } from './paths.js';
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

/** The store of the repository that contains `cwd`: `<git common dir>/land/`. */
export async function openStore(cwd: string): Promise<FileStore> {
  const store = new FileStore(stateRoot(await commonDir(cwd)));
  store.ensure();
  return store;
}

/**
 * The store of the queue the commands work on: the clone's own (`queue` null), or the cache of a
 * queue kept in a git remote, brought up to date with one fetch (docs/remote.md).
 */
export async function openQueueStore(cwd: string, queue: Omit<QueueRemote, 'cwd'> | null): Promise<FileStore> {
  if (!queue) return openStore(cwd);
  const store = new RemoteStore(join(stateRoot(await commonDir(cwd)), 'remote', encodeURIComponent(queue.remote)), { ...queue, cwd });
  store.ensure();
  await store.refresh();
  return store;
}
