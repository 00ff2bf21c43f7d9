// What a transaction's push moves: a commit on each changed job's record ref (its journal lines in
// the message), the tips of the jobs still to land, the seq ref when jobs were created (leases and
// the seq's forward move: refLeases.ts), the lease
// when a drainer renews it, and the refs a landing adds (its target). `commit` records in the
// remote state what the push moved, once it went through.
import { writeCommits, type NewCommit, type RefUpdate } from '../../git/index.js';
import { recordMessage, remoteRefs, type QueueRefs, type QueueRemote, type RemoteState } from '../remoteLayout.js';
import type { LeaseKeeper } from '../remoteLease.js';
import { TERMINAL_STATES } from '../formats/index.js';
import { landedTrainsOf, publishPart, type PublishInput } from './publish.js';
import { jobLease, nextSeqLast } from './refLeases.js';
import { renewAsked, type Transaction, type TransactOptions } from './transaction.js';

export interface PushPlan {
  updates: RefUpdate[];
  commit: (next: RemoteState) => void;
  /** Whether jobs riding this drainer's train were kept back (changed in the cache only). */
  kept: boolean;
  /** The commit each pushed record ref moves to, for inflight.json. */
  pushed: Record<string, string>;
  /** Whether the push publishes the drainer's unpublished metrics rows (remote.json then moves its mark). */
  publishedRows: boolean;
}

export async function pushUpdates(opts: {
  txn: Transaction;
  state: RemoteState;
  transact: TransactOptions;
  refs: QueueRefs;
  lease: LeaseKeeper;
  queue: QueueRemote;
  /** What a drainer holding the lease publishes with this push: its rows not yet published, and the txn's (publish.ts). */
  unpublished: (txnRows: readonly Record<string, unknown>[]) => Omit<PublishInput, 'refs' | 'published' | 'remote'>;
}): Promise<PushPlan> {
  const { txn, state, transact, refs, lease: keeper, queue } = opts;
  const names = remoteRefs(queue.remote);
  // A job riding this drainer's train changes in the cache only: nobody else may move it, and
  // its landing (or its return to the queue) pushes the record with these journal lines.
  const holding = keeper.held() !== null;
  const kept = holding ? [...txn.after.values()].filter((job) => job.state === 'in_progress') : [];
  const jobs = [...txn.after.values()].filter((job) => !kept.includes(job));
  const entriesOf = (id: string) => [...(state.pending[id] ?? []), ...txn.entries.filter((entry) => entry.job === id)];
  const leases = jobs.map((job) => jobLease(job.id, entriesOf(job.id), state, refs, queue.remote));
  const last = nextSeqLast(
    jobs.filter((_, i) => leases[i]?.created).map((job) => job.id),
    state.seqLast,
  );
  const changing = jobs.length > 0 || Boolean(transact.extra?.length) || (holding && renewAsked(transact.renew));
  // The landing push carries the landed train's log too (a landed job's `land log` in any clone).
  const landed = holding ? landedTrainsOf(jobs) : [];
  const part = holding ? publishPart({ ...opts.unpublished(txn.rows), landed, refs, published: state.published, remote: queue.remote }) : null;
  // The rows ride a push that goes anyway (at most one push a train); a failed train's story goes now.
  const publishing = part !== null && (changing || part.urgent);
  const renewing = holding && (changing || publishing);
  const commits: NewCommit[] = jobs.map((job, i) => ({
    parent: leases[i]?.parent ?? null,
    files: [{ name: 'record.json', content: `${JSON.stringify(job, null, 2)}\n` }],
    message: recordMessage(job, entriesOf(job.id)),
  }));
  // A seq ref that names no commit (forged) is replaced by a new history, leased on what it names.
  const seqParent = state.seq !== null && state.seq === refs.seq && !refs.seqIsCommit ? null : state.seq;
  if (last) commits.push({ parent: seqParent, files: [{ name: 'last', content: `${last}\n` }], message: `land: seq ${last}\n` });
  const lease = renewing ? keeper.renewalCommit() : null;
  if (lease) commits.push(lease);
  const publishFrom = commits.length;
  if (part && publishing) commits.push(...part.commits);
  const ids = await writeCommits(queue.cwd, commits);
  const publishedIds = ids.slice(publishFrom);
  // The lease is on what the remote holds (refLeases.ts): only a new submission expects no ref.
  const updates: RefUpdate[] = jobs.map((job, i) => ({ ref: names.job(job.id), to: ids[i] as string, expect: leases[i]?.expect ?? null }));
  for (const job of jobs) {
    const head = state.heads[job.id] ?? null;
    // A finished job's tip lands nowhere: not sent (a bad tip may be no object this clone has).
    if (job.tip !== head && !TERMINAL_STATES.includes(job.state)) updates.push({ ref: names.head(job.id), to: job.tip, expect: head });
  }
  if (last) updates.push({ ref: names.seq, to: ids[jobs.length] as string, expect: state.seq });
  const leaseId = lease ? (ids[publishFrom - 1] as string) : null;
  if (lease && leaseId) updates.push({ ref: names.lease, to: leaseId, expect: lease.parent });
  updates.push(...(transact.extra ?? []));
  if (part && publishing) updates.push(...part.updates(publishedIds));
  const commit = (next: RemoteState) => {
    if (part && publishing) part.record(next.published, publishedIds);
    jobs.forEach((job, i) => {
      next.jobs[job.id] = ids[i] as string;
      next.heads[job.id] = job.tip;
      delete next.pending[job.id];
    });
    for (const job of kept) next.pending[job.id] = entriesOf(job.id);
    if (last) {
      next.seq = ids[jobs.length] as string;
      next.seqLast = last;
    }
    if (leaseId) keeper.renewed(leaseId);
  };
  const pushed = Object.fromEntries(jobs.map((job, i) => [job.id, ids[i] as string]));
  return { updates, commit, kept: kept.length > 0, pushed, publishedRows: publishing };
}
