// The leases a push of job records takes (pushPlan.ts), decided here, pure. A job ref is created
// only by the submission that gives the job its id (its `submitted` line rides the push): only then
// does the push expect the ref not to exist. Any other write leases on the ref as fetched, and a
// job whose ref is gone (pruned by `land gc` in another clone) is refused, never pushed back. The
// seq ref only moves forward: to the highest id created, which must come after the fetched seq's.
import { LandError } from '../../errors.js';
import { idAfter } from '../activeIndex.js';
import type { JournalEntry } from '../formats/index.js';
import type { QueueRefs, RemoteState } from '../remoteLayout.js';

export interface JobLease {
  /** This push creates the job (a new submission). */
  created: boolean;
  /** The job ref's value the remote must hold (null: it must not exist). */
  expect: string | null;
  /** The parent of the record's new commit: the commit the cache last read (null: a new history). */
  parent: string | null;
}

/** How the push writes job `id` whose lines in this push are `entries`; a pruned job is refused (exit 4). */
export function jobLease(
  id: string,
  entries: readonly JournalEntry[],
  state: Pick<RemoteState, 'jobs'>,
  refs: Pick<QueueRefs, 'misfits'>,
  remote: string,
): JobLease {
  const known = state.jobs[id] ?? null;
  // A ref that names no commit is replaced by the record's chain, leased on what it names.
  const misfit = refs.misfits.get(id)?.oid ?? null;
  if (known !== null || misfit !== null) return { created: false, expect: misfit ?? known, parent: known };
  if (entries.some((entry) => entry.event === 'submitted')) return { created: true, expect: null, parent: null };
  throw new LandError('not_found', `no job ${id} on ${remote}: its ref is gone (pruned by land gc in another clone); nothing was pushed`, {
    hint: 'see `land status --all` for job ids',
  });
}

/**
 * The seq ref's new last id when this push creates `created`: the highest of them. Null when none
 * is created. An id not after the fetched seq's last (`seqLast`) was given before: refused, never
 * pushed (seq would move back, and a pruned job's id would be reused).
 */
export function nextSeqLast(created: readonly string[], seqLast: string | null): string | null {
  if (!created.length) return null;
  const stale = created.filter((id) => !idAfter(id, seqLast));
  if (stale.length) {
    throw new LandError('busy', `job id ${stale.join(', ')} was already given out on the remote (its seq names ${seqLast}); nothing was pushed`, {
      hint: 'run the command again: it fetches the queue first',
    });
  }
  return [...created].sort((a, b) => (idAfter(a, b) ? 1 : -1)).at(-1) as string;
}
