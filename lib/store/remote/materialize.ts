// Bringing a remote queue's cache up to the refs last fetched: every record whose ref moved since
// the cache last saw it is written, and the journal lines its new commits carry are appended (two
// git processes, only when something moved). Runs under the cache's lock.
import { chainMessages, readBlobs } from '../../git/index.js';
import type { LocalStore } from '../localStore.js';
import { entriesOfMessage, JOURNAL_MESSAGE_MAX_BYTES, type QueueRefs, type QueueRemote, type RemoteState } from '../remoteLayout.js';
import { idAfter } from '../activeIndex.js';
import { jobIdSchema, jobRecordSchema, type JobRecord } from '../formats/index.js';
import { forgetJobs } from '../local/prune.js';
import type { RemoteCacheFiles } from './cacheFiles.js';

/** A record read from a job ref's commit; null when it is not one. */
function parseRecord(text: string | null | undefined, id: string): JobRecord | null {
  try {
    const parsed = jobRecordSchema.safeParse(JSON.parse(text ?? 'null'));
    return parsed.success && parsed.data.id === id ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * A job whose ref this cache had read and that is now gone from the remote was pruned by `land gc`
 * in some clone (gc deletes only finished jobs' refs; nothing else deletes a job ref): its cached
 * record goes whatever state this clone last saw (a stale clone may have seen it queued), and a
 * `pruned` journal line keeps every later rebuild from bringing it back (local/prune.ts).
 */
function forgetPruned(cache: LocalStore, state: RemoteState, refs: QueueRefs): void {
  const gone = Object.keys(state.jobs).filter((id) => !refs.jobs.has(id) && !refs.misfits.has(id));
  if (gone.length) forgetJobs(cache, gone, 'remote');
}

/** The seq ref's `last` file to read (`<commit>:last`), when the seq moved since the cache read it; null otherwise. */
function seqBlobToRead(state: RemoteState, refs: QueueRefs): string | null {
  if (refs.seq === null || !refs.seqIsCommit || (refs.seq === state.seq && state.seqLast !== null)) return null;
  return `${refs.seq}:last`;
}

/** The highest id given out, as the fetched seq ref's `last` says; never below what the cache knew. */
function seqLastOf(state: RemoteState, text: string | null | undefined): string | null {
  const fetched = text?.trim() ?? '';
  return jobIdSchema.safeParse(fetched).success && idAfter(fetched, state.seqLast) ? fetched : state.seqLast;
}

export async function materialize(opts: { cache: LocalStore; files: RemoteCacheFiles; refs: QueueRefs; queue: QueueRemote }): Promise<void> {
  const { cache, files, refs, queue } = opts;
  const state = files.readState();
  const changed = [...refs.jobs].filter(([id, oid]) => state.jobs[id] !== oid);
  // The seq moves with every created job: its file is read with the records (one git process).
  const seqBlob = seqBlobToRead(state, refs);
  let seqText: string | null | undefined = null;
  if (changed.length) {
    const { messages, tooLarge } = await chainMessages(
      queue.cwd,
      changed.map(([id, oid]) => ({ tip: oid, since: state.jobs[id] ?? null })),
      JOURNAL_MESSAGE_MAX_BYTES,
    );
    if (tooLarge)
      process.stderr.write(
        `land: warning: ${tooLarge} record commit${tooLarge === 1 ? '' : 's'} on ${queue.remote} had a message over ${JOURNAL_MESSAGE_MAX_BYTES} bytes; their journal lines are left out\n`,
      );
    const blobs = await readBlobs(queue.cwd, [...changed.map(([, oid]) => `${oid}:record.json`), ...(seqBlob ? [seqBlob] : [])]);
    if (seqBlob) seqText = blobs.get(seqBlob);
    // A new cache: an empty index at journal offset 0, so readers catch it up from the lines below.
    if (!cache.hasJournal() && !cache.readIndex()) cache.writeIndex({ version: 1, journalEnd: 0, journalTail: '', lastId: null, active: {}, recent: [] });
    for (const message of messages) for (const entry of entriesOfMessage(message)) cache.replayJournal(entry);
    for (const [id, oid] of changed) {
      const record = parseRecord(blobs.get(`${oid}:record.json`), id);
      if (record) cache.writeJob(record);
      else process.stderr.write(`land: warning: the record of ${id} on ${queue.remote} (${oid.slice(0, 12)}) is corrupt; it is left out\n`);
    }
  } else if (seqBlob) seqText = (await readBlobs(queue.cwd, [seqBlob])).get(seqBlob);
  forgetPruned(cache, state, refs);
  // A job whose record moved on the remote: the remote's record wins over what this drainer kept back.
  const pending = Object.fromEntries(Object.entries(state.pending).filter(([id]) => !changed.some(([moved]) => moved === id)));
  // A job ref that now names no commit: the cache keeps the record, and the last commit it read (the parent of its next push).
  const kept = [...refs.misfits.keys()].flatMap((id) => (state.jobs[id] ? [[id, state.jobs[id]] as const] : []));
  const next: RemoteState = {
    version: 1,
    jobs: { ...Object.fromEntries(kept), ...Object.fromEntries(refs.jobs) },
    heads: Object.fromEntries(refs.heads),
    seq: refs.seq,
    seqLast: seqLastOf(state, seqText),
    pending,
    published: state.published,
  };
  if (JSON.stringify(next) !== JSON.stringify(state)) files.writeState(next);
}
