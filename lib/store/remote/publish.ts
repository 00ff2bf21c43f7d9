// What a drainer's push publishes for the failure story (formats/published.ts, docs/remote.md):
// the metrics rows it has not published yet (one commit on its metrics ref), and for each failed
// train among them the train's commit and its gate log. Pure: the caller writes the commits,
// pushes the updates with the rest of its push, and records the new refs once it went through.
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
  /** The text of a log this clone keeps; null when it has none. */
  logText: (train: string) => string | null;
}

export interface PublishPart {
  /** The metrics commit first, then one log commit per failed train with a log. */
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
  if (verdict === 'PASS' || landed === true || typeof train !== 'string' || typeof commit !== 'string') return null;
  if (!publishedTrainSchema.safeParse(train).success || !OID.test(commit)) return null;
  // `log` is the path of the log that judged it (the judging train's, for a cached verdict).
  const ranGates = cached !== true && typeof log === 'string' && basename(log) === `${train}.log`;
  return { train, commit, ranGates };
}

/** The publishing part of a push; null when there are no rows to publish. */
export function publishPart(input: PublishInput): PublishPart | null {
  if (!input.rows.length) return null;
  const { drainer, published, refs } = input;
  const names = remoteRefs(input.remote);
  const failed = input.rows.flatMap((row) => {
    const train = failedTrainOf(row);
    return train && published.trains[train.train] === undefined ? [train] : [];
  });
  failed.splice(0, failed.length, ...new Map(failed.map((train) => [train.train, train])).values());
  const withLogs = failed.flatMap((train) => {
    const text = train.ranGates && published.logs[train.train] === undefined ? input.logText(train.train) : null;
    return text === null ? [] : [{ train: train.train, text }];
  });
  const own = published.metrics[drainer] ?? null;
  const found = refs.metrics.get(drainer);
  // A metrics ref that names no commit (forged) is replaced by a new chain, leased on what it names.
  const parent = found && found.oid === own && found.type !== 'commit' ? null : own;
  const commits: NewCommit[] = [
    { parent, files: [], message: metricsMessage(drainer, input.rows) },
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
      { ref: names.metrics(drainer), to: ids[0] as string, expect: own },
      ...withLogs.map(({ train }, i) => ({ ref: names.log(train), to: ids[i + 1] as string, expect: refs.logs.get(train)?.oid ?? null })),
      ...failed.map(({ train, commit }) => ({ ref: names.train(train), to: commit, expect: refs.trains.get(train)?.oid ?? null })),
    ],
    record: (next, ids) => {
      next.metrics[drainer] = ids[0] as string;
      withLogs.forEach(({ train }, i) => {
        next.logs[train] = ids[i + 1] as string;
      });
      for (const { train, commit } of failed) next.trains[train] = commit;
    },
  };
}
