// Which records one run of `land reconcile` looks at: this target's jobs in id order (plain string
// order of the ids, `j-YYYYMMDD-NNNN`, so by day then by number), those after `--after`, at most
// `limit` of them. `nextAfter` is the last id of the page when more follow, else null.
import { LandError } from '../errors.js';
import { jobTarget } from '../queue/index.js';
import { JOB_ID_PATTERN, type JobRecord } from '../store/index.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

export interface Page {
  jobs: JobRecord[];
  nextAfter: string | null;
}

export function selectPage(jobs: readonly JobRecord[], target: string, after: string | null, limit: number): Page {
  const mine = jobs
    .filter((job) => jobTarget(job, target) === target && (after === null || job.id > after))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const page = mine.slice(0, limit);
  return { jobs: page, nextAfter: mine.length > limit ? (page[page.length - 1]?.id ?? null) : null };
}

/** `--limit`: a whole number from 1 to 100 (default 50); anything else is exit 2. */
export function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
    throw new LandError('usage', `--limit: expected a whole number from 1 to ${MAX_LIMIT}, got ${JSON.stringify(text)}`);
  }
  return n;
}

/** `--after`: a job id (it need not exist: the page starts after it in id order). */
export function parseAfter(text: string | undefined): string | null {
  if (text === undefined) return null;
  if (!JOB_ID_PATTERN.test(text) || text.length > 100) throw new LandError('usage', `--after: not a job id: ${JSON.stringify(text)}`);
  return text;
}
