// Bringing the cache's published/ folder up to the published refs last fetched (formats/published.ts):
// each drainer's new metrics commits are read (one `git log` per drainer whose ref moved; a ref
// that was rewritten is read whole again) and each new log blob (one `cat-file --batch`). A ref
// that is not in land's shape (not a commit, a log too large, rows that are not rows) is skipped
// with one warning per object: anyone who can push can write there, and no reader may fail for it.
import { chainMessages, isKnownAncestor, readBlobs, type RefObject } from '../../git/index.js';
import { PUBLISHED_LOG_FILE, readablePublishedLog, rowsOfMetricsMessage } from '../formats/published.js';
import type { QueueRefs, RemoteState } from '../remoteLayout.js';
import type { PublishedFiles } from './publishedFiles.js';

type Published = RemoteState['published'];

export interface PublishedReader {
  cwd: string;
  remote: string;
  files: PublishedFiles;
  /** This clone's own drainer name: its rows are in metrics.jsonl already. */
  ownDrainer: string | null;
  /** Whether this clone keeps the train's log itself (its drainer wrote it). */
  ownLog: (train: string) => boolean;
  /** Says a skipped object once (the caller keeps what it said). */
  warn: (key: string, message: string) => void;
}

export async function materializePublished(reader: PublishedReader, refs: QueueRefs, before: Published): Promise<Published> {
  const metrics = await materializeMetrics(reader, refs.metrics, before.metrics);
  const logs = await materializeLogs(reader, refs.logs, before.logs);
  // Train refs need nothing here: the fetch brought their commits; a ref that is no commit is not used.
  const trains = Object.fromEntries([...refs.trains].filter(([, object]) => object.type === 'commit').map(([train, object]) => [train, object.oid]));
  return { metricsAt: before.metricsAt, metrics, logs, trains };
}

async function materializeMetrics(
  reader: PublishedReader,
  refs: ReadonlyMap<string, RefObject>,
  seen: Record<string, string>,
): Promise<Record<string, string>> {
  const next: Record<string, string> = {};
  for (const [drainer, object] of refs) {
    if (drainer === reader.ownDrainer) {
      next[drainer] = object.oid; // the parent (and the lease) of its next push
      continue;
    }
    if (object.type !== 'commit') {
      reader.warn(
        object.oid,
        `refs/land/metrics/${drainer} on ${reader.remote} is a ${object.type} (${object.oid.slice(0, 12)}), not a commit of metrics rows; it is skipped`,
      );
      if (seen[drainer]) next[drainer] = seen[drainer];
      continue;
    }
    next[drainer] = object.oid;
    if (seen[drainer] === object.oid) continue;
    const since = seen[drainer] && (await isKnownAncestor(reader.cwd, seen[drainer], object.oid)) ? seen[drainer] : null;
    const messages = await chainMessages(reader.cwd, [{ tip: object.oid, since }]);
    let bad = 0;
    const rows = messages.flatMap((message) => {
      const read = rowsOfMetricsMessage(message);
      bad += read.bad;
      return read.rows;
    });
    if (bad)
      reader.warn(
        `${drainer} ${object.oid}`,
        `refs/land/metrics/${drainer} on ${reader.remote} carries ${bad} line${bad === 1 ? '' : 's'} that are not metrics rows; they are skipped`,
      );
    reader.files.writeRows(drainer, rows, since ? 'append' : 'replace');
  }
  // A drainer whose ref is gone: its rows go too.
  for (const drainer of reader.files.drainers()) if (!(drainer in next)) reader.files.removeRows(drainer);
  return next;
}

async function materializeLogs(reader: PublishedReader, refs: ReadonlyMap<string, RefObject>, seen: Record<string, string>): Promise<Record<string, string>> {
  const next: Record<string, string> = {};
  const changed: [string, string][] = [];
  for (const [train, object] of refs) {
    if (object.type !== 'commit') {
      reader.warn(
        object.oid,
        `refs/land/logs/${train} on ${reader.remote} is a ${object.type} (${object.oid.slice(0, 12)}), not a commit holding a log; it is skipped`,
      );
      continue;
    }
    if (seen[train] === object.oid) next[train] = object.oid;
    else changed.push([train, object.oid]);
  }
  const blobs = await readBlobs(
    reader.cwd,
    changed.map(([, oid]) => `${oid}:${PUBLISHED_LOG_FILE}`),
  );
  for (const [train, oid] of changed) {
    const text = readablePublishedLog(blobs.get(`${oid}:${PUBLISHED_LOG_FILE}`));
    if (text === null) {
      reader.warn(oid, `refs/land/logs/${train} on ${reader.remote} (${oid.slice(0, 12)}) holds no readable log; it is skipped`);
      reader.files.removeLog(train);
      continue;
    }
    if (!reader.ownLog(train)) reader.files.writeLog(train, text);
    next[train] = oid;
  }
  // A log whose ref is gone (`land gc`): its copy goes too.
  for (const train of Object.keys(seen)) if (!(train in next) && !refs.has(train)) reader.files.removeLog(train);
  return next;
}
