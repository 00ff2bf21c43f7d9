// Pure readings of the evidence about one job: its journal lines, the metrics rows naming it and
// the merges in the target that name it.
import type { LandMerge } from '../git/index.js';
import { journalDetail, metricsRowField, type JobRecord, type JournalEntry } from '../store/index.js';
import type { CheckKind, TrainRowLite } from './types.js';

/** The journal line that last said which state the job is in (a transition, or an update keeping it). */
export function lastStateLine(entries: readonly JournalEntry[]): JournalEntry | null {
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const entry = entries[i] as JournalEntry;
    if (entry.to !== null) return entry;
  }
  return null;
}

/** The journal line of the job's last landing (a move into `landed`), or null. */
export function landingLine(entries: readonly JournalEntry[]): JournalEntry | null {
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const entry = entries[i] as JournalEntry;
    if (entry.to === 'landed' && entry.from !== 'landed') return entry;
  }
  return null;
}

/** Landings that write no metrics row: recovery's, an already contained tip, reconcile's and a person's. */
export const ROWLESS_LANDINGS: ReadonlySet<string> = new Set(['recovered_landed', 'already_contained', 'reconciled', 'resolved']);

/** Whether an earlier `land reconcile` already journaled this finding (the journal explains it). */
export function alreadyNoted(entries: readonly JournalEntry[], check: CheckKind, key: string): boolean {
  return entries.some((entry) => {
    const noted = journalDetail(entry, 'reconciled');
    return noted?.check === check && noted.key === key;
  });
}

/** A metrics row read field by field (rows of earlier versions lack fields); null when it names no members. */
export function rowLite(raw: Record<string, unknown>): TrainRowLite | null {
  // Members one by one: a list with one bad entry still names the others (as reconcile always read it).
  if (!Array.isArray(raw.members)) return null;
  const members = raw.members.filter((m): m is string => typeof m === 'string');
  return {
    train: metricsRowField(raw, 'train') ?? null,
    commit: metricsRowField(raw, 'commit') ?? null,
    members,
    landed: metricsRowField(raw, 'landed') === true,
  };
}

/** The rows naming each of `ids`. */
export function rowsByJob(rows: readonly Record<string, unknown>[], ids: readonly string[]): Map<string, TrainRowLite[]> {
  const wanted = new Set(ids);
  const byJob = new Map<string, TrainRowLite[]>();
  for (const raw of rows) {
    const row = rowLite(raw);
    if (!row) continue;
    for (const member of row.members) {
      if (!wanted.has(member)) continue;
      const list = byJob.get(member);
      if (list) list.push(row);
      else byJob.set(member, [row]);
    }
  }
  return byJob;
}

/** A record that says its tip is in the target (landed), or may be found so (uncertain). */
export function claimsLanding(job: JobRecord): boolean {
  return job.state === 'landed' || job.state === 'uncertain';
}

/**
 * The commits a page's ancestry query must answer for: the records' trains, the tips of the jobs
 * that claim a landing, and landed rows' commits.
 */
export function candidateCommits(jobs: readonly JobRecord[], rows: Iterable<readonly TrainRowLite[]>): string[] {
  const out = new Set<string>();
  for (const job of jobs) {
    if (job.train) out.add(job.train);
    if (claimsLanding(job)) out.add(job.tip);
  }
  for (const list of rows) for (const row of list) if (row.landed && row.commit && /^[0-9a-f]{40,64}$/.test(row.commit)) out.add(row.commit);
  return [...out];
}

/**
 * Where the merges of the page's merge landings are looked for: the trains (in the target) of the
 * jobs that claim a landing by merge and whose tip is in the target too (else git already refutes it).
 */
export function trainsToWalk(jobs: readonly JobRecord[], inTarget: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  for (const job of jobs) {
    if (claimsLanding(job) && job.landedVia === 'merge' && job.train && inTarget.has(job.train) && inTarget.has(job.tip)) out.add(job.train);
  }
  return [...out];
}

/** For each of `ids`, the tips merged by the merges that name it: their parents after the first. */
export function mergedTipsByJob(merges: readonly LandMerge[], ids: readonly string[]): Map<string, string[]> {
  const wanted = new Set(ids);
  const byJob = new Map<string, string[]>();
  for (const merge of merges) {
    for (const id of merge.jobs) {
      if (!wanted.has(id)) continue;
      byJob.set(id, [...(byJob.get(id) ?? []), ...merge.parents.slice(1)]);
    }
  }
  return byJob;
}
