// Names and formats of a queue kept in a git remote (docs/remote.md). On the remote, under
// refs/land/: seq, jobs/<id>, heads/<id>, lease, and what drainers publish for the failure story
// (formats/published.ts): metrics/<drainer>, logs/<train>, trains/<train>. In a clone, the fetched copies live under
// refs/land-queue/<remote>/ and the cache of records in .git/land/remote/<remote>/.
import { z } from 'zod';
import type { RefObject } from '../git/index.js';
import { activeIndexSchema } from './activeIndex.js';
import { jobIdSchema, jobRecordSchema, journalEntrySchema, type JobRecord, type JournalEntry } from './formats/index.js';
import { drainerIdSchema, publishedTrainSchema } from './formats/published.js';

export const REMOTE_PREFIX = 'refs/land/';

export interface QueueRemote {
  /** The clone the commands run in. */
  cwd: string;
  /** The git remote's name. */
  remote: string;
  target: string;
  leaseSeconds: number;
  pollSeconds: number;
}

/** Where a clone keeps its fetched copy of the queue refs. */
export function localPrefix(remote: string): string {
  return `refs/land-queue/${remote}/`;
}

export function remoteRefs(remote: string) {
  const local = localPrefix(remote);
  return {
    seq: `${REMOTE_PREFIX}seq`,
    lease: `${REMOTE_PREFIX}lease`,
    job: (id: string) => `${REMOTE_PREFIX}jobs/${id}`,
    head: (id: string) => `${REMOTE_PREFIX}heads/${id}`,
    metrics: (drainer: string) => `${REMOTE_PREFIX}metrics/${drainer}`,
    log: (train: string) => `${REMOTE_PREFIX}logs/${train}`,
    train: (train: string) => `${REMOTE_PREFIX}trains/${train}`,
    /** What `land gc` kept of the jobs it pruned (formats/prunedJob.ts). */
    pruned: `${REMOTE_PREFIX}pruned`,
    local,
    remoteOf: (localRef: string) => `${REMOTE_PREFIX}${localRef.slice(local.length)}`,
  };
}

/** The queue refs as fetched: job id → commit, head id → tip, seq and lease commits. */
export interface QueueRefs {
  jobs: Map<string, string>;
  heads: Map<string, string>;
  seq: string | null;
  lease: string | null;
  /**
   * Whether `seq` and `lease` name commits. Anyone who can push may put a blob or a tree there: the
   * next commit written there then starts a new history (no parent), with its push still leased on
   * what the ref names, so the forged ref is replaced instead of wedging every submit and drainer.
   */
  seqIsCommit: boolean;
  leaseIsCommit: boolean;
  /**
   * Job refs that name no commit (a tree, a blob or a tag pushed there by hand or by a hostile
   * client): no record can be read from them, so they are left out of `jobs` and reported. By job
   * id: the object the ref names, and its type.
   */
  misfits: Map<string, RefObject>;
  /** What drainers published (formats/published.ts), by drainer or train; refs of other names are left out. */
  metrics: Map<string, RefObject>;
  logs: Map<string, RefObject>;
  trains: Map<string, RefObject>;
  /** refs/land/pruned: what `land gc` kept of the jobs it pruned; null when no gc pruned a job yet. */
  pruned: RefObject | null;
}

export function emptyQueueRefs(): QueueRefs {
  return {
    jobs: new Map(),
    heads: new Map(),
    seq: null,
    lease: null,
    seqIsCommit: false,
    leaseIsCommit: false,
    misfits: new Map(),
    metrics: new Map(),
    logs: new Map(),
    trains: new Map(),
    pruned: null,
  };
}

/** The published ref `ref` names (`metrics/<drainer>`, `logs/<train>`, `trains/<train>`), when its name is one land writes. */
function publishedOf(ref: string): { kind: 'metrics' | 'logs' | 'trains'; name: string } | null {
  const match = /^refs\/land\/(metrics|logs|trains)\/(.+)$/.exec(ref);
  if (!match) return null;
  const kind = match[1] as 'metrics' | 'logs' | 'trains';
  const name = match[2] as string;
  const valid = kind === 'metrics' ? drainerIdSchema.safeParse(name).success : publishedTrainSchema.safeParse(name).success;
  return valid ? { kind, name } : null;
}

export function parseQueueRefs(remote: string, refs: ReadonlyMap<string, RefObject>): QueueRefs {
  const names = remoteRefs(remote);
  const found = emptyQueueRefs();
  const jobsPrefix = `${REMOTE_PREFIX}jobs/`;
  for (const [localRef, { oid, type }] of refs) {
    const ref = names.remoteOf(localRef);
    if (ref === names.seq) Object.assign(found, { seq: oid, seqIsCommit: type === 'commit' });
    else if (ref === names.lease) Object.assign(found, { lease: oid, leaseIsCommit: type === 'commit' });
    else if (ref.startsWith(jobsPrefix) && type === 'commit') found.jobs.set(ref.slice(jobsPrefix.length), oid);
    else if (ref.startsWith(jobsPrefix)) found.misfits.set(ref.slice(jobsPrefix.length), { oid, type });
    else if (ref.startsWith(`${REMOTE_PREFIX}heads/`)) found.heads.set(ref.slice(`${REMOTE_PREFIX}heads/`.length), oid);
    else if (ref === names.pruned) found.pruned = { oid, type };
    else {
      const published = publishedOf(ref);
      if (published) found[published.kind].set(published.name, { oid, type });
    }
  }
  return found;
}

/** The one-line warning for a job ref that names no commit: the ref, the object and what it is. */
export function misfitWarning(remote: string, id: string, misfit: RefObject): string {
  return `land: warning: ${REMOTE_PREFIX}jobs/${id} on ${remote} is a ${misfit.type} (${misfit.oid.slice(0, 12)}), not a commit holding a job record; it is skipped`;
}

/** A record commit's message: a subject a person can read, then the change's journal lines. */
export function recordMessage(job: JobRecord, entries: readonly JournalEntry[]): string {
  const last = entries[entries.length - 1];
  const subject = last ? `land: ${job.id} ${last.from ?? 'new'} -> ${last.to} (${last.event})` : `land: ${job.id} ${job.state}`;
  return `${subject}\n\n${entries.map((entry) => JSON.stringify(entry)).join('\n')}\n`;
}

/** A record commit's message larger than this (a few journal lines a change) is skipped unread: anyone may push one. */
export const JOURNAL_MESSAGE_MAX_BYTES = 4 * 1024 * 1024;

/** The journal lines a record commit's message carries (lines that are not one are skipped). */
export function entriesOfMessage(message: string): JournalEntry[] {
  const entries: JournalEntry[] = [];
  for (const line of message.split('\n').slice(1)) {
    if (!line.startsWith('{')) continue;
    try {
      const parsed = journalEntrySchema.safeParse(JSON.parse(line));
      if (parsed.success) entries.push(parsed.data);
    } catch {
      // a line that is not JSON is not a journal line
    }
  }
  return entries;
}

export { LEASE_LINE_ERE, leaseHost, leaseMessage, leaseSchema, leaseText, parseLeaseText, type Lease } from './formats/lease.js';

/** The cache folder's own file: which commit of each queue ref the cache reflects. */
export const remoteStateSchema = z.object({
  version: z.literal(1),
  jobs: z.record(z.string(), z.string()),
  heads: z.record(z.string(), z.string()),
  seq: z.string().nullable(),
  /**
   * The highest job id ever given out, as the seq ref's commit says (its file `last`): ids are
   * allocated after it, so a job `land gc` pruned never has its id given again. Null: not known.
   */
  seqLast: jobIdSchema.nullable().default(null),
  /** Journal lines of changes this drainer made in the cache only (a job riding its train), by job: the job's next push carries them. */
  pending: z.record(z.string(), z.array(journalEntrySchema)).default({}),
  published: z
    .object({
      /** Bytes of this clone's metrics.jsonl its drainer's metrics ref carries (null: unknown, taken as the file's end: never published twice). */
      metricsAt: z.number().int().nonnegative().nullable(),
      /** The commit of each published ref this cache reflects (its drainer's own: the last it pushed or fetched). */
      metrics: z.record(z.string(), z.string()),
      logs: z.record(z.string(), z.string()),
      trains: z.record(z.string(), z.string()),
      /** Published objects skipped as too large or not in land's shape (log commits, metrics commits): never read again. */
      skipped: z.array(z.string()).default([]),
      /** The commit of refs/land/pruned this cache's published/pruned.jsonl reflects; null: none read. */
      pruned: z.string().nullable().default(null),
    })
    .default({ metricsAt: null, metrics: {}, logs: {}, trains: {}, skipped: [], pruned: null }),
});
export type RemoteState = z.infer<typeof remoteStateSchema>;

export function emptyRemoteState(): RemoteState {
  return {
    version: 1,
    jobs: {},
    heads: {},
    seq: null,
    seqLast: null,
    pending: {},
    published: { metricsAt: null, metrics: {}, logs: {}, trains: {}, skipped: [], pruned: null },
  };
}

/**
 * The cache folder's `inflight.json`: how to take back a transaction whose push is under way. A
 * process killed before it learnt the push's fate leaves it; the next holder of the queue lock
 * takes the cache back (unless remote.json already names `pushed`, the commits the push carried),
 * and the remote's refs then say what happened: a push the remote took is fetched like any other.
 */
export const inflightSchema = z.object({
  version: z.literal(1),
  /** Where the transaction's first journal line starts (null: it wrote none). */
  journalStart: z.number().int().nonnegative().nullable(),
  /** Each record the transaction wrote, as it was before (null: it did not exist). */
  before: z.record(z.string(), jobRecordSchema.nullable()),
  index: z.object({ saved: z.boolean(), value: activeIndexSchema.nullable() }),
  branches: z.record(z.string(), z.array(z.string()).nullable()),
  /** The job refs the push moves, and to which commits. */
  pushed: z.record(z.string(), z.string()),
});
export type Inflight = z.infer<typeof inflightSchema>;
