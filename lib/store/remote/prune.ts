// `land gc` in a queue kept in a remote: after a fresh fetch, one atomic push deletes the refs of
// the jobs still finished (record and tip) and of the trains only they rode (log and commit), each
// leased on the commit fetched (a job retried meanwhile keeps its record: the push is refused and
// nothing is deleted). Then the cache forgets them: records, logs, published copies. The drainers'
// metrics refs are history and stay. Runs under the cache's lock.
import { LandError } from '../../errors.js';
import { pushAtomic, writeCommits, type RefUpdate } from '../../git/index.js';
import { prunedMessages, type PrunedJob } from '../formats/prunedJob.js';
import type { LocalStore } from '../localStore.js';
import { forgetJobs, prunedJobsOf, removeJobFiles, stillPrunable } from '../local/prune.js';
import type { PruneRequest, PruneResult } from '../queueKind.js';
import { remoteRefs, type QueueRefs, type QueueRemote, type RemoteState } from '../remoteLayout.js';
import type { RemoteCacheFiles } from './cacheFiles.js';
import { describeRefused, remoteError } from './errors.js';
import type { PublishedFiles } from './publishedFiles.js';

/** The deletions of the push: each ref that exists on the remote, leased on what it names. */
export function pruneUpdates(remote: string, refs: QueueRefs, jobs: readonly string[], trains: readonly string[]): RefUpdate[] {
  const names = remoteRefs(remote);
  const updates: RefUpdate[] = [];
  const drop = (ref: string, oid: string | undefined) => {
    if (oid) updates.push({ ref, to: '', expect: oid });
  };
  for (const id of jobs) {
    drop(names.job(id), refs.jobs.get(id) ?? refs.misfits.get(id)?.oid);
    drop(names.head(id), refs.heads.get(id));
  }
  for (const train of trains) {
    drop(names.log(train), refs.logs.get(train)?.oid);
    drop(names.train(train), refs.trains.get(train)?.oid);
  }
  return updates;
}

export async function pruneRemote(parts: {
  cache: LocalStore;
  files: RemoteCacheFiles;
  published: PublishedFiles;
  refs: QueueRefs;
  queue: QueueRemote;
  request: PruneRequest;
}): Promise<PruneResult> {
  const { cache, files, published, refs, queue, request } = parts;
  // Re-planned under the lock: a job retried since the plan keeps its record and its trains.
  const { jobs, trains } = stillPrunable(request, (id) => cache.readJob(id));
  const updates = pruneUpdates(queue.remote, refs, jobs, trains);
  // What stats, report and tune count of the jobs goes in the same push (refs/land/pruned), so
  // their figures do not change in any clone when the records go (formats/prunedJob.ts).
  const kept = prunedJobsOf(jobs, (id) => cache.readJob(id));
  const keep = kept.length ? await prunedCommit(queue, refs, kept) : null;
  if (keep) updates.push(keep.update);
  if (updates.length) {
    const pushed = await pushAtomic(queue.cwd, queue.remote, updates).catch((error: unknown) => {
      throw remoteError(error);
    });
    if (pushed.kind === 'refused') {
      throw new LandError('busy', `the queue on ${queue.remote} changed while land gc ran: ${describeRefused(pushed.refs)}; nothing was pruned`, {
        hint: 'run land gc again',
      });
    }
  }
  forgetJobs(cache, jobs, 'gc');
  removeJobFiles(cache.paths, [], trains);
  for (const train of trains) published.removeLog(train);
  const state = files.readState();
  const known = state.published.pruned === (refs.pruned?.oid ?? null);
  if (keep && known) published.writePruned(kept, 'append');
  const next = forget(state, jobs, trains);
  // The cache reflects the new commit only when it reflected its parent; else the next fetch reads the chain.
  if (keep && known) next.published.pruned = keep.update.to;
  files.writeState(next);
  return { jobs, trains, remoteRefs: updates.filter((update) => update.to === '').length };
}

/** One more commit on refs/land/pruned carrying `jobs`, and its update leased on what was fetched (a blob there starts a new chain). */
async function prunedCommit(queue: QueueRemote, refs: QueueRefs, jobs: readonly PrunedJob[]): Promise<{ update: RefUpdate }> {
  const parent = refs.pruned?.type === 'commit' ? refs.pruned.oid : null;
  // One commit per message, each within the readers' cap: a first gc of a long history is several.
  let tip = parent;
  for (const message of prunedMessages(jobs)) tip = (await writeCommits(queue.cwd, [{ parent: tip, files: [], message }]))[0] ?? null;
  return { update: { ref: remoteRefs(queue.remote).pruned, to: tip as string, expect: refs.pruned?.oid ?? null } };
}

/** The remote state without the pruned jobs and trains. */
function forget(state: RemoteState, jobs: readonly string[], trains: readonly string[]): RemoteState {
  const without = (record: Record<string, string>, keys: readonly string[]) =>
    Object.fromEntries(Object.entries(record).filter(([key]) => !keys.includes(key)));
  return {
    ...state,
    jobs: without(state.jobs, jobs),
    heads: without(state.heads, jobs),
    published: { ...state.published, logs: without(state.published.logs, trains), trains: without(state.published.trains, trains) },
  };
}
