// The policy and tip of the target as this drainer sees it: the branch itself for a clone's own
// queue, the remote-tracking ref (fetched with the queue refs) for a queue kept in a remote.
import { loadPolicy, type LoadedPolicy } from '../config/index.js';
import { refTip } from '../git/index.js';
import type { QueueStore } from '../store/index.js';

/** `known`: the policy read before; the same policy file is not parsed again (config/load.ts). */
export function loadTargetPolicy(cwd: string, store: QueueStore, target: string, known: LoadedPolicy | null = null): Promise<LoadedPolicy> {
  return loadPolicy(cwd, target, store.targetRef(target), known);
}

/** The target's tip as this store's clone sees it; null when there is no such branch. */
export function targetTip(cwd: string, store: QueueStore, target: string): Promise<string | null> {
  return refTip(cwd, store.targetRef(target));
}
