// What `land gc` keeps of a finished job it prunes (docs/stats.md, "After land gc"): the fields
// `land stats`, `land report` and `land tune` read of a job record (jobShape.ts), so their figures
// do not change when the record goes. Declared once here:
// - prunedJobSchema: the kept fields, picked from the record's schema (the bulky ones, the gate
//   log's excerpt or a conflict preview, are left out);
// - a clone's own queue appends one line per pruned job to `pruned.jsonl` in its state folder;
// - a queue kept in a remote keeps them on `refs/land/pruned`: a chain of commits (empty trees),
//   one per `land gc` push, each message a subject then one job a line. Anyone who can push can
//   write there: a line that is not a counted job's shape is skipped, and a commit larger than
//   PRUNED_MESSAGE_MAX_BYTES is not read (the metrics chain's caps: published.ts).
import type { z } from 'zod';
import { jobRecordSchema, type JobRecord } from './jobRecord.js';
import { jobShapeProblem } from './jobShape.js';
import { jsonLinesOfMessage, METRICS_MESSAGE_MAX_BYTES } from './published.js';

export const prunedJobSchema = jobRecordSchema.pick({
  version: true,
  id: true,
  branch: true,
  title: true,
  submitter: true,
  state: true,
  reason: true,
  error: true,
  timestamps: true,
  fastPath: true,
  flaky: true,
});
export type PrunedJob = z.infer<typeof prunedJobSchema>;

/**
 * A message larger than this is skipped whole: the metrics chain's cap, which the reader applies to
 * both chains (published.ts). gc writes a few hundred bytes a job, and splits a larger prune over
 * several commits (prunedMessages).
 */
export const PRUNED_MESSAGE_MAX_BYTES = METRICS_MESSAGE_MAX_BYTES;

/** What `land gc` keeps of `job`. */
export function prunedJobOf(job: JobRecord): PrunedJob {
  const { version, id, branch, title, submitter, state, reason, error, timestamps, fastPath, flaky } = job;
  return { version, id, branch, title, submitter, state, reason, error, timestamps, ...(fastPath ? { fastPath } : {}), ...(flaky ? { flaky } : {}) };
}

/** The message of a commit on refs/land/pruned carrying `jobs` (one compact JSON line each). */
export function prunedMessage(jobs: readonly PrunedJob[]): string {
  const lines = jobs.map((job) => JSON.stringify(job)).join('\n');
  return `land: ${jobs.length} finished job${jobs.length === 1 ? '' : 's'} pruned by land gc\n\n${lines}\n`;
}

/** The messages of the commits one `land gc` adds, in order: `jobs` split so each is within `maxBytes`. */
export function prunedMessages(jobs: readonly PrunedJob[], maxBytes = PRUNED_MESSAGE_MAX_BYTES): string[] {
  const room = maxBytes - 200; // the subject line
  const chunks: PrunedJob[][] = [];
  let chunk: PrunedJob[] = [];
  let bytes = 0;
  for (const job of jobs) {
    const size = Buffer.byteLength(JSON.stringify(job)) + 1;
    if (chunk.length && bytes + size > room) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(job);
    bytes += size;
  }
  if (chunk.length) chunks.push(chunk);
  return chunks.map(prunedMessage);
}

/** The pruned jobs a commit's message carries; lines without a counted job's shape (jobShape.ts) are counted in `bad`. */
export function prunedJobsOfMessage(message: string): { jobs: Record<string, unknown>[]; bad: number } {
  const { items, bad } = jsonLinesOfMessage(message, PRUNED_MESSAGE_MAX_BYTES, (raw) => jobShapeProblem(raw) === null);
  return { jobs: items, bad };
}
