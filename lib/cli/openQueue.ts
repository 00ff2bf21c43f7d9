// The inputs every queue command starts from, resolved once per command: the target's name, where
// the queue lives (the clone's own state folder, or a git remote: docs/remote.md), the store, and
// the policy at the target's tip. Commands and the drain are handed these values; nothing below
// resolves them again.
import { missingTargetError, policyOfRead, resolveTargetName, type LoadedPolicy } from '../config/index.js';
import { resolveQueueMode } from '../config/queueMode.js';
import { commonDir } from '../git/index.js';
import { loadTargetPolicy } from '../landing/targetPolicy.js';
import { openQueueStore, type QueueStore } from '../store/index.js';

/** The command line's say in which queue a command works on. */
export interface QueueFlags {
  /** `--target`: the target branch, if named. */
  target?: string;
  /** `--queue-remote`: the git remote that keeps the queue, if named. */
  queueRemote?: string;
}

export interface OpenedQueue {
  /** The queue's store: this clone's own, or the cache of a queue kept in a remote, fetched once. */
  store: QueueStore;
  /** The target's name (`--target`, else LAND_TARGET, else land.target, else main); rejects when it is no valid branch name. */
  target(): Promise<string>;
  /** The policy at the target's tip (for a remote queue: at the remote's target, as fetched), read once for the command. */
  policy(): Promise<LoadedPolicy>;
  /** The policy at the target's tip as it is now (a drain reads it again for each pass). */
  reloadPolicy(): Promise<LoadedPolicy>;
}

/**
 * Opens the queue a command works on. `target` is the target's name being resolved (a command
 * starts that early, beside its first git call); by default it is resolved here. The queue's mode
 * is read from the policy at the target branch: for the clone's own queue that same read is the
 * command's policy, so git is not asked twice.
 */
export async function openQueue(cwd: string, flags: QueueFlags, target: Promise<string> = resolveTargetName(cwd, flags.target)): Promise<OpenedQueue> {
  target.catch(() => undefined); // its refusal is the command's to give, below or when it asks
  await commonDir(cwd); // outside a repository: that error, before any other git is asked
  const name = await target.catch((error: unknown) => {
    if (flags.queueRemote) throw error;
    return null; // a command that needs the target reports it; the clone's own queue needs none
  });
  const mode = name === null ? null : await resolveQueueMode(cwd, name, flags.queueRemote);
  const store = await openQueueStore(cwd, mode?.mode ?? null);
  const reloadPolicy = async () => loadTargetPolicy(cwd, store, await target);
  // The clone's own queue: the read its mode was decided from is the policy's. A queue kept in a
  // remote is read at its remote-tracking ref, fetched since.
  const first =
    name !== null && mode !== null && mode.mode === null
      ? async () => {
          if (mode.branchRead === null) throw await missingTargetError(cwd, name);
          return policyOfRead(name, mode.branchRead);
        }
      : reloadPolicy;
  let loaded: Promise<LoadedPolicy> | null = null;
  return {
    store,
    target: () => target,
    policy: () => {
      loaded ??= first();
      return loaded;
    },
    reloadPolicy,
  };
}
