// What a drainer of a queue kept in a remote publishes for the clones that do not run it
// (docs/remote.md, "The failure story from any clone"), declared once here:
// - refs/land/metrics/<drainer>: an append-only chain of commits, each message a subject line then
//   the metrics rows it adds, one JSON object a line (the rows of metrics.jsonl, metricsRow.ts);
// - refs/land/logs/<train>: a commit whose tree holds `log`, a failed train's gate log as the
//   drainer's log store kept it (capped and redacted by the gates' log writer), cut again to
//   PUBLISHED_LOG_MAX_BYTES;
// - refs/land/trains/<train>: the failed train's commit itself (its base and member tips come with it).
// Anyone who can push can write these refs: readers take a name, a row or a log only in these
// shapes and skip (with one warning) whatever is not.
import { z } from 'zod';
import { isRecord } from './isRecord.js';
import { JOB_ID_PATTERN } from './jobRecord.js';
import { storedMetricsRowSchema } from './metricsRow.js';

/** A drainer's name in its metrics ref: random hex, made once per cache folder. */
export const drainerIdSchema = z.string().regex(/^[0-9a-f]{16}$/);

/** A train's name in a log or train ref: a train id as the drain makes them (a log id). */
export const publishedTrainSchema = z.string().max(100).regex(JOB_ID_PATTERN);

/** A published log is cut to this size; a reader skips a log blob larger than READ_LOG_MAX_BYTES. */
export const PUBLISHED_LOG_MAX_BYTES = 1024 * 1024;
export const READ_LOG_MAX_BYTES = PUBLISHED_LOG_MAX_BYTES + 4096;
/** A metrics commit's message larger than this is skipped whole (a drainer writes a few rows a push). */
export const METRICS_MESSAGE_MAX_BYTES = 4 * 1024 * 1024;
/** One read of a drainer's metrics chain takes at most its newest this many commits... */
export const METRICS_CHAIN_MAX_COMMITS = 20_000;
/** ...and at most this many bytes of commits: the older ones past it are left out. */
export const METRICS_READ_MAX_BYTES = 64 * 1024 * 1024;
/** How many skipped object ids the remote state remembers (the oldest are forgotten first). */
export const SKIPPED_KEPT_MAX = 1000;

/** Why a log commit's `log` (its type and size, null when there is none) is not read; null when it is. */
export function logSkipReason(info: { type: string; size: number } | null): string | null {
  if (!info) return 'holds no log file';
  if (info.type !== 'blob') return `holds a ${info.type} where its log file should be`;
  if (info.size > READ_LOG_MAX_BYTES) return `holds a log of ${info.size} bytes, more than the ${READ_LOG_MAX_BYTES} a reader takes`;
  return null;
}

/**
 * Which commits of a metrics chain (oldest first, with their sizes) to read: not one skipped
 * before, none larger than METRICS_MESSAGE_MAX_BYTES (`tooLarge`), and, newest first, no more than
 * METRICS_READ_MAX_BYTES in all (the older ones are `leftOut`).
 */
export function metricsCommitsToRead(
  commits: readonly { oid: string; size: number }[],
  skipped: ReadonlySet<string>,
): { read: string[]; tooLarge: string[]; leftOut: number } {
  const read: string[] = [];
  const tooLarge: string[] = [];
  let budget = METRICS_READ_MAX_BYTES;
  let leftOut = 0;
  for (const commit of [...commits].reverse()) {
    if (skipped.has(commit.oid)) continue;
    if (commit.size > METRICS_MESSAGE_MAX_BYTES) tooLarge.push(commit.oid);
    else if (commit.size > budget) leftOut += 1;
    else {
      budget -= commit.size;
      read.push(commit.oid);
    }
  }
  return { read: read.reverse(), tooLarge: tooLarge.reverse(), leftOut };
}

/** The skipped ids remembered: `before` and `added`, the newest SKIPPED_KEPT_MAX of them. */
export function rememberSkipped(before: readonly string[], added: readonly string[]): string[] {
  const all = [...new Set([...before, ...added])];
  return all.slice(Math.max(0, all.length - SKIPPED_KEPT_MAX));
}

/** The file a log commit's tree holds the log in. */
export const PUBLISHED_LOG_FILE = 'log';

/** The message of a metrics commit carrying `rows` (each row one compact JSON line). */
export function metricsMessage(drainer: string, rows: readonly unknown[]): string {
  return `land: metrics of drainer ${drainer}, ${rows.length} row${rows.length === 1 ? '' : 's'}\n\n${rows.map((row) => JSON.stringify(row)).join('\n')}\n`;
}

/**
 * The JSON lines a published commit's message carries after its subject (a metrics row, a pruned
 * job): those `accept` takes; every other line is counted in `bad`, and a message over `maxBytes`
 * is one bad line, unread.
 */
export function jsonLinesOfMessage(
  message: string,
  maxBytes: number,
  accept: (raw: Record<string, unknown>) => boolean,
): { items: Record<string, unknown>[]; bad: number } {
  if (Buffer.byteLength(message) > maxBytes) return { items: [], bad: 1 };
  const items: Record<string, unknown>[] = [];
  let bad = 0;
  for (const line of message.split('\n').slice(1)) {
    if (!line.trim()) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      bad += 1;
      continue;
    }
    if (isRecord(raw) && accept(raw)) items.push(raw);
    else bad += 1;
  }
  return { items, bad };
}

/** The rows a metrics commit's message carries; lines that are not a stored metrics row are counted in `bad`. */
export function rowsOfMetricsMessage(message: string): { rows: Record<string, unknown>[]; bad: number } {
  const { items, bad } = jsonLinesOfMessage(message, METRICS_MESSAGE_MAX_BYTES, (raw) => storedMetricsRowSchema.safeParse(raw).success);
  return { rows: items, bad };
}

/** The message of a log commit. */
export function logMessage(train: string): string {
  return `land: gate log of train ${train}\n`;
}

/**
 * A log as published: as kept when it fits, else its first quarter and its last three quarters of
 * PUBLISHED_LOG_MAX_BYTES around one line that says how much was cut (both cut on line ends where
 * one is near). The failure is near the end of a gate's output, the gates' headers near the start.
 */
export function publishedLogText(text: string, dropped = 0): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= PUBLISHED_LOG_MAX_BYTES && dropped === 0) return text;
  const headRoom = PUBLISHED_LOG_MAX_BYTES / 4;
  const tailRoom = PUBLISHED_LOG_MAX_BYTES - headRoom - 200;
  const headNewline = bytes.lastIndexOf(0x0a, headRoom - 1);
  const headEnd = headNewline > 0 ? headNewline + 1 : headRoom;
  const tailFrom = bytes.length - tailRoom;
  const tailNewline = bytes.indexOf(0x0a, tailFrom);
  const tailStart = tailNewline !== -1 && tailNewline < tailFrom + 4096 ? tailNewline + 1 : tailFrom;
  const cut = Math.max(0, tailStart - headEnd) + dropped;
  const head = bytes.subarray(0, headEnd).toString('utf8');
  const tail = bytes.subarray(Math.max(tailStart, headEnd)).toString('utf8');
  return `${head}== land: ${cut} bytes of this log were cut when it was published (the drainer's own copy has them)\n${tail}`;
}

/**
 * A log as published, read in slices (`read(offset)`, lib/store/scan.ts readFrom) with bounded
 * memory: the first slice, and a rolling tail of PUBLISHED_LOG_MAX_BYTES of the rest, the bytes in
 * between counted on the cut line. A log of a gigabyte costs one pass, not a gigabyte.
 */
export function readLogForPublishing(read: (offset: number) => { text: string; next: number }): string {
  const first = read(0);
  let offset = first.next;
  let tail = '';
  let dropped = 0;
  for (let slice = read(offset); slice.text; slice = read(offset)) {
    offset = slice.next;
    tail += slice.text;
    const excess = Buffer.byteLength(tail) - PUBLISHED_LOG_MAX_BYTES;
    if (excess > 0) {
      dropped += excess;
      tail = Buffer.from(tail).subarray(excess).toString('utf8');
    }
  }
  return publishedLogText(first.text + tail, dropped);
}

/** A log blob as a reader takes it: text no larger than READ_LOG_MAX_BYTES, else null. */
export function readablePublishedLog(text: string | null | undefined): string | null {
  if (typeof text !== 'string' || Buffer.byteLength(text) > READ_LOG_MAX_BYTES || text.includes('\0')) return null;
  return text;
}
