// What a drainer's push publishes for the failure story (formats/published.ts, docs/remote.md):
// the metrics rows it has not published yet (one commit on its metrics ref), for each failed
// train among them the train's commit and its gate log, and the gate log of each train the push
// lands (its row is written after the landing, and rides a later push). Pure: the caller writes
// the commits, pushes the updates with the rest of its push, and records the new refs once it went
// through.
import { basename } from 'node:path';
import type { NewCommit, RefUpdate } from '../../git/index.js';
import { logMessage, metricsMessage, PUBLISHED_LOG_FILE, publishedLogText, publishedTrainSchema } from '../formats/published.js';
import { remoteRefs, type QueueRefs, type RemoteState } from '../remoteLayout.js';

type Row = Record<string, unknown>;
type Published = RemoteState['published'];

export interface PublishInput {
  remote: string;
  drainer: string;
  published: Published;
  refs: QueueRefs;
  /** The rows not published yet, oldest first. */
  rows: readonly Row[];
  /** The trains this push lands that ran their own gates (landedTrainsOf): their logs ride it. */
  landed?: readonly string[];
  /** The text of a log this clone keeps; null when it has none. */
  logText: (train: string) => string | null;
}

export interface PublishPart {
  /** The metrics commit first (when there are rows), then one log commit per failed or landed train with a log. */
  commits: NewCommit[];
  /** The ref updates, given the ids of `commits` in order. */
  updates: (ids: readonly string[]) => RefUpdate[];
  /** Records the published refs in the remote state, once the push went through. */
  record: (next: Published, ids: readonly string[]) => void;
  /** Whether a failed train is among the rows (its story must reach the remote now, not with a later push). */
  urgent: boolean;
}

const OID = /^[0-9a-f]{40,64}$/;

/** A train that did not land because of its verdict (FAIL or INFRA): its name and commit, when the row has them. */
export function failedTrainOf(row: Row): { train: string; commit: string; ranGates: boolean } | null {
  const { train, commit, verdict, landed, log, cached } = row;
  // A void run (verdict VOID: abandoned, nothing it found counts) is no failure to tell.
  if ((verdict !== 'FAIL' && verdict !== 'INFRA') || landed === true || typeof train !== 'string' || typeof commit !== 'string') return null;
  if (!publishedTrainSchema.safeParse(train).success || !OID.test(commit)) return null;
  // `log` is the path of the log that judged it (the judging train's, for a cached verdict).
  const ranGates = cached !== true && typeof log === 'string' && basename(log) === `${train}.log`;
  return { train, commit, ranGates };
}

/**
 * The trains a push lands, from the landed records it carries: the train whose log the record
 * names (`gateLog`, `<train>.log`), when its gates ran (mode full or selective: not a cached
 * verdict, whose own log holds land's header lines only, nor a fast path on a proof).
 */
export function landedTrainsOf(jobs: readonly { state: string; gateLog: string | null; gate: { mode?: string } | null }[]): string[] {
  const trains = jobs.flatMap((job) => {
    if (job.state !== 'landed' || job.gateLog === null || (job.gate?.mode !== 'full' && job.gate?.mode !== 'selective')) return [];
    const name = basename(job.gateLog).replace(/\.log$/, '');
    return name !== basename(job.gateLog) && publishedTrainSchema.safeParse(name).success ? [name] : [];
  });
  return [...new Set(trains)];
}

/** The publishing part of a push; null when there is nothing to publish (no rows, no landed train's log). */
export function publishPart(input: PublishInput): PublishPart | null {
  const { drainer, published, refs } = input;
  const names = remoteRefs(input.remote);
  const failed = input.rows.flatMap((row) => {
    const train = failedTrainOf(row);
    return train && published.trains[train.train] === undefined ? [train] : [];
  });
  failed.splice(0, failed.length, ...new Map(failed.map((train) => [train.train, train])).values());
  const logTrains = [...new Set([...failed.filter((train) => train.ranGates).map((train) => train.train), ...(input.landed ?? [])])];
  const withLogs = logTrains.flatMap((train) => {
    const text = published.logs[train] === undefined ? input.logText(train) : null;
    return text === null ? [] : [{ train, text }];
  });
  if (!input.rows.length && !withLogs.length) return null;
  const own = published.metrics[drainer] ?? null;
  const found = refs.metrics.get(drainer);
  // A metrics ref that names no commit (forged) is replaced by a new chain, leased on what it names.
  const parent = found && found.oid === own && found.type !== 'commit' ? null : own;
  const metrics: NewCommit[] = input.rows.length ? [{ parent, files: [], message: metricsMessage(drainer, input.rows) }] : [];
  const first = metrics.length; // the index of the first log commit
  const commits: NewCommit[] = [
    ...metrics,
    ...withLogs.map(({ train, text }) => ({
      parent: null,
      files: [{ name: PUBLISHED_LOG_FILE, content: publishedLogText(text) }],
      message: logMessage(train),
    })),
  ];
  return {
    commits,
    urgent: failed.length > 0,
    updates: (ids) => [
      ...(first ? [{ ref: names.metrics(drainer), to: ids[0] as string, expect: own }] : []),
      ...withLogs.map(({ train }, i) => ({ ref: names.log(train), to: ids[first + i] as string, expect: refs.logs.get(train)?.oid ?? null })),
      ...failed.map(({ train, commit }) => ({ ref: names.train(train), to: commit, expect: refs.trains.get(train)?.oid ?? null })),
    ],
    record: (next, ids) => {
      if (first) next.metrics[drainer] = ids[0] as string;
      withLogs.forEach(({ train }, i) => {
        next.logs[train] = ids[first + i] as string;
      });
      for (const { train, commit } of failed) next.trains[train] = commit;
    },
  };
}
