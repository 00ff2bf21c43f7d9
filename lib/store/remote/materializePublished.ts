// Bringing the cache's published/ folder up to the published refs last fetched (formats/published.ts):
// each drainer's new metrics commits are read (their ids, then their sizes, then the messages of
// those within the caps; a ref that was rewritten is read whole again) and each new log blob (its
// type and size first, then the content of those within the cap). A ref that is not in land's
// shape (not a commit, a log or a message too large, rows that are not rows) is skipped with one
// warning, and its object id is remembered in the state's `skipped` so it is never read again:
// anyone who can push can write there, and no reader may fail, hang or slow down for it.
import { chainCommits, isKnownAncestor, objectInfo, readBlobs, readCommitMessages, type RefObject } from '../../git/index.js';
import {
  logSkipReason,
  METRICS_CHAIN_MAX_COMMITS,
  metricsCommitsToRead,
  PUBLISHED_LOG_FILE,
  readablePublishedLog,
  rememberSkipped,
  rowsOfMetricsMessage,
} from '../formats/published.js';
import { prunedJobsOfMessage } from '../formats/prunedJob.js';
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
  const skipped = new Set(before.skipped);
  const added: string[] = [];
  const skip = (oid: string, message: string) => {
    added.push(oid);
    skipped.add(oid);
    reader.warn(oid, message);
  };
  const metrics = await materializeMetrics(reader, refs.metrics, before.metrics, { skipped, skip });
  const logs = await materializeLogs(reader, refs.logs, before.logs, { skipped, skip });
  // Train refs need nothing here: the fetch brought their commits; a ref that is no commit is not used.
  const trains = Object.fromEntries([...refs.trains].filter(([, object]) => object.type === 'commit').map(([train, object]) => [train, object.oid]));
  const pruned = await materializePruned(reader, refs.pruned, before.pruned, { skipped, skip });
  return { metricsAt: before.metricsAt, metrics, logs, trains, skipped: rememberSkipped(before.skipped, added), pruned };
}

/**
 * refs/land/pruned (formats/prunedJob.ts): its new commits' jobs appended to published/pruned.jsonl
 * (the whole chain again when it was rewritten), read within the metrics chain's caps; gone, the
 * file goes. Returns the commit the file now reflects.
 */
async function materializePruned(reader: PublishedReader, object: RefObject | null, seen: string | null, skips: Skips): Promise<string | null> {
  const name = `refs/land/pruned on ${reader.remote}`;
  if (!object) {
    if (seen) reader.files.removePruned();
    return null;
  }
  if (object.oid === seen || skips.skipped.has(object.oid)) return seen;
  if (object.type !== 'commit') {
    skips.skip(object.oid, `${name} is a ${object.type} (${object.oid.slice(0, 12)}), not a commit of pruned jobs; it is skipped`);
    return seen;
  }
  const since = seen && (await isKnownAncestor(reader.cwd, seen, object.oid)) ? seen : null;
  try {
    const parse = (message: string) => {
      const { jobs, bad } = prunedJobsOfMessage(message);
      return { items: jobs, bad };
    };
    const jobs = await readChain(reader, name, { tip: object.oid, since }, skips, { what: 'pruned jobs', parse });
    reader.files.writePruned(jobs, since ? 'append' : 'replace');
  } catch (error) {
    skips.skip(object.oid, `${name} (${object.oid.slice(0, 12)}) could not be read (${(error as Error).message}); it is skipped`);
    return seen;
  }
  return object.oid;
}

/** The objects skipped before, and how to skip one more (warned once, remembered). */
interface Skips {
  skipped: ReadonlySet<string>;
  skip: (oid: string, message: string) => void;
}

async function materializeMetrics(
  reader: PublishedReader,
  refs: ReadonlyMap<string, RefObject>,
  seen: Record<string, string>,
  skips: Skips,
): Promise<Record<string, string>> {
  const next: Record<string, string> = {};
  for (const [drainer, object] of refs) {
    const name = `refs/land/metrics/${drainer} on ${reader.remote}`;
    if (drainer === reader.ownDrainer) {
      next[drainer] = object.oid; // the parent (and the lease) of its next push
      continue;
    }
    if (object.type !== 'commit') {
      reader.warn(object.oid, `${name} is a ${object.type} (${object.oid.slice(0, 12)}), not a commit of metrics rows; it is skipped`);
      if (seen[drainer]) next[drainer] = seen[drainer];
      continue;
    }
    next[drainer] = object.oid;
    if (seen[drainer] === object.oid || skips.skipped.has(object.oid)) continue;
    const since = seen[drainer] && (await isKnownAncestor(reader.cwd, seen[drainer], object.oid)) ? seen[drainer] : null;
    try {
      const rows = await readChain(reader, name, { tip: object.oid, since }, skips);
      reader.files.writeRows(drainer, rows, since ? 'append' : 'replace');
    } catch (error) {
      // A chain git cannot walk (objects missing, say): skipped, and not tried again.
      skips.skip(object.oid, `${name} (${object.oid.slice(0, 12)}) could not be read (${(error as Error).message}); it is skipped`);
    }
  }
  // A drainer whose ref is gone: its rows go too.
  for (const drainer of reader.files.drainers()) if (!(drainer in next)) reader.files.removeRows(drainer);
  return next;
}

/** What one published chain's commits carry: its name in warnings, and how a message is read. */
interface ChainLines {
  what: string;
  parse: (message: string) => { items: Record<string, unknown>[]; bad: number };
}

const METRICS_LINES: ChainLines = {
  what: 'metrics rows',
  parse: (message) => {
    const { rows, bad } = rowsOfMetricsMessage(message);
    return { items: rows, bad };
  },
};

/**
 * The lines of a published chain's new commits (a drainer's metrics, refs/land/pruned): ids first,
 * then sizes, then the messages within the caps; what is skipped or left out is said once.
 */
async function readChain(
  reader: PublishedReader,
  name: string,
  range: { tip: string; since: string | null },
  skips: Skips,
  lines: ChainLines = METRICS_LINES,
): Promise<Record<string, unknown>[]> {
  const oids = await chainCommits(reader.cwd, range, METRICS_CHAIN_MAX_COMMITS);
  const infos = await objectInfo(reader.cwd, oids);
  const commits = oids.map((oid) => ({ oid, size: infos.get(oid)?.size ?? Number.POSITIVE_INFINITY }));
  const pick = metricsCommitsToRead(commits, skips.skipped);
  for (const oid of pick.tooLarge) skips.skip(oid, `${name} has a commit (${oid.slice(0, 12)}) too large to be ${lines.what}; it is skipped`);
  if (pick.leftOut)
    reader.warn(`${range.tip} left out`, `${name}: ${pick.leftOut} older commit${pick.leftOut === 1 ? '' : 's'} past the read cap are left out`);
  const messages = await readCommitMessages(reader.cwd, pick.read);
  let bad = 0;
  const items = pick.read.flatMap((oid) => {
    const read = lines.parse(messages.get(oid) ?? '');
    bad += read.bad;
    return read.items;
  });
  if (bad) reader.warn(`${name} ${range.tip}`, `${name} carries ${bad} line${bad === 1 ? '' : 's'} that are not ${lines.what}; they are skipped`);
  return items;
}

async function materializeLogs(
  reader: PublishedReader,
  refs: ReadonlyMap<string, RefObject>,
  seen: Record<string, string>,
  skips: Skips,
): Promise<Record<string, string>> {
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
    else if (!skips.skipped.has(object.oid)) changed.push([train, object.oid]);
  }
  // Type and size first: a log blob larger than the cap is never read.
  const infos = await objectInfo(
    reader.cwd,
    changed.map(([, oid]) => `${oid}:${PUBLISHED_LOG_FILE}`),
  );
  const readable = changed.filter(([train, oid]) => {
    const why = logSkipReason(infos.get(`${oid}:${PUBLISHED_LOG_FILE}`) ?? null);
    if (why === null) return true;
    skips.skip(oid, `refs/land/logs/${train} on ${reader.remote} (${oid.slice(0, 12)}) ${why}; it is skipped`);
    reader.files.removeLog(train);
    return false;
  });
  const blobs = await readBlobs(
    reader.cwd,
    readable.map(([, oid]) => `${oid}:${PUBLISHED_LOG_FILE}`),
  );
  for (const [train, oid] of readable) {
    const text = readablePublishedLog(blobs.get(`${oid}:${PUBLISHED_LOG_FILE}`));
    if (text === null) {
      skips.skip(oid, `refs/land/logs/${train} on ${reader.remote} (${oid.slice(0, 12)}) holds no readable log; it is skipped`);
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
