// What `land stats`, `land report` and `land tune` read: the queue's recorded history, gathered in
// one place from the store (job records, metrics rows, the window, the journal's abandoned trains)
// and turned into plain data. Everything after this module is a pure function of a History.
//
// Where each part comes from, and whose it is in a queue kept in a remote (docs/remote.md):
// - jobs: every job record (shared: in a remote queue, everybody's jobs), and what `land gc` kept
//   of the jobs it pruned (pruned.jsonl, or refs/land/pruned: the figures outlive the records);
// - trains: metrics.jsonl, one row per judged train (the drainer's own: kept per drainer);
// - window: window.json's history (the last 50 changes, with set/reset by people);
// - voided and abandoned: the rows of trains whose run is void (verdict VOID), and journal lines of
//   members put back by an abandoned speculative train (a drain before VOID rows wrote none).
import { isLandError } from '../errors.js';
import type { TrainRow } from '../story/trainRow.js';
import {
  isVoidRow,
  journalDetail,
  METRICS_ROW_IDENTITY,
  metricsRowFieldChecks,
  type QueueStore,
  type JobRecord,
  type WindowHistoryEntry,
} from '../store/index.js';

/** The journal's reason for a member put back by an abandoned speculative train (pipeline/abandon.ts ABANDONED). */
const ABANDONED_REASON = 'speculation_abandoned';

export interface AbandonedTrain {
  train: string;
  /** When its first member was put back, or its void row's time (epoch ms). */
  at: number;
  members: string[];
  /** Why its run is void (metricsRow.ts VOID_REASONS: interrupted, withdrawn, speculation_abandoned, cleared). */
  reason: string;
}

export interface History {
  /** When the history was read (epoch ms): "now" for every figure computed from it. */
  readAt: number;
  /** The start of the period asked for (`--since`, epoch ms); null: everything recorded. */
  since: number | null;
  /**
   * Job records: with `since`, the jobs submitted or ended at or after it (a job still queued or
   * riding counts whenever it was submitted).
   */
  jobs: JobRecord[];
  /** Records that could not be read (file names): counted, never thrown. */
  corruptJobs: number;
  /** Metrics rows (one per judged train), oldest first, with their time in epoch ms; with `since`, those at or after it. */
  trains: HistoryTrain[];
  /**
   * The rows of trains whose run is void (verdict VOID: stopped, a member withdrawn, a speculative
   * train abandoned), as `trains`: not judged, but their gate runs were spent.
   */
  voided: HistoryTrain[];
  /** Metrics lines that did not parse or lack a train's shape. */
  unreadableTrains: number;
  /** window.json's history (its last 50 changes), oldest first; with `since`, those at or after it. */
  window: WindowHistoryEntry[];
  /**
   * The window's size now: this clone's window.json; in a clone of a remote queue that keeps none,
   * the window after the latest train a drainer published (windowFrom 'drainer'); null when neither.
   */
  windowNow: number | null;
  /** Whose window windowNow is: this clone's drains', or a drainer's published rows (shown, never used). */
  windowFrom: 'here' | 'drainer';
  /** Trains whose run is void: their VOID rows, and speculative trains abandoned before they wrote rows (from the journal). */
  abandoned: AbandonedTrain[];
  /** What could not be read and was left out (a corrupt window.json), one line each, for a warning. */
  problems: string[];
}

export interface HistoryTrain extends TrainRow {
  /** `at` as epoch ms (NaN rows are dropped). */
  time: number;
}

/** Epoch ms of an ISO time, or null when absent or unreadable. */
export function timeOf(iso: unknown): number | null {
  if (typeof iso !== 'string') return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}

/** When the job left the queue for good (landed, failed or canceled), or null while it has not. */
export function endedAt(job: JobRecord): number | null {
  const t = job.timestamps;
  if (job.state === 'landed') return timeOf(t.landed);
  if (job.state === 'failed') return timeOf(t.failed);
  if (job.state === 'canceled') return timeOf(t.canceled);
  return null;
}

function jobInPeriod(job: JobRecord, since: number | null): boolean {
  if (since === null) return true;
  const ended = endedAt(job);
  if (ended === null) return true;
  const queued = timeOf(job.timestamps.queued);
  return ended >= since || (queued !== null && queued >= since);
}

const isString = (v: unknown): v is string => typeof v === 'string';

/** The optional fields' fast checks: every field of a stored row but a train's identity and its time. */
const OPTIONAL_CHECKS = Object.entries(metricsRowFieldChecks).filter(([key]) => key !== 'at' && !(METRICS_ROW_IDENTITY as readonly string[]).includes(key));

/**
 * Metrics rows with a train's shape: a train, members and a verdict, a time, and every other field
 * of the type the drain writes or absent (a field of another type is dropped, as an older row lacks
 * it). The checks are generated from the stored row's schema (lib/store/formats/metricsRow.ts), not
 * a zod parse of each row: 10,000 rows in a few milliseconds instead of ~100. Nested telemetry is
 * read leniently where it is used (lib/stats/trainRuns.ts).
 */
export function trainRowsOf(raw: readonly Record<string, unknown>[]): { rows: HistoryTrain[]; unreadable: number } {
  const rows: HistoryTrain[] = [];
  let unreadable = 0;
  for (const value of raw) {
    const time = timeOf(value.at);
    const { train, members, verdict } = value;
    if (!isString(train) || !isString(verdict) || !Array.isArray(members) || !members.every(isString) || time === null) {
      unreadable += 1;
      continue;
    }
    const row: HistoryTrain = { ...value, train, members, verdict, time };
    for (const [key, ok] of OPTIONAL_CHECKS) if (key in row && !ok(row[key])) delete row[key];
    rows.push(row);
  }
  return { rows, unreadable };
}

/** Reads the history from `store` (after the store's own refresh, which a remote queue needs). */
export function readHistory(store: QueueStore, opts: { since?: number | null; now?: number } = {}): History {
  const since = opts.since ?? null;
  // Only the shape the figures read is checked (lib/store/formats/jobShape.ts): with 10,000 records the full schema costs more than the reading.
  const listing = store.listJobs({ check: 'shape' });
  const metrics = store.readMetrics();
  const parsed = trainRowsOf(metrics.rows);
  const trains: HistoryTrain[] = [];
  const voided: HistoryTrain[] = [];
  for (const row of parsed.rows) {
    if (since === null || row.time >= since) (isVoidRow(row) ? voided : trains).push(row);
  }
  trains.sort((a, b) => a.time - b.time);
  voided.sort((a, b) => a.time - b.time);
  const problems: string[] = [];
  const windowState = readWindowLeniently(store, problems);
  const drainers = windowState === null && store.rowsPerDrainer ? latestWindowAfter(parsed.rows) : null;
  const window = (windowState?.history ?? []).filter((entry) => {
    const time = timeOf(entry.at);
    return time !== null && (since === null || time >= since);
  });
  return {
    readAt: opts.now ?? Date.now(),
    since,
    jobs: withPruned(listing.jobs, store.readPrunedJobs()).filter((job) => jobInPeriod(job, since)),
    corruptJobs: listing.corrupt.length,
    trains,
    unreadableTrains: parsed.unreadable + metrics.badLines.length,
    window,
    windowNow: windowState?.size ?? drainers,
    windowFrom: drainers === null ? 'here' : 'drainer',
    voided,
    abandoned: abandonedTrains(voided, journalAbandoned(store, since)),
    problems,
  };
}

/** The window after the latest train (by time) whose row records one; null when none does (lib/landing/windowView.ts shows the same). */
export function latestWindowAfter(rows: readonly HistoryTrain[]): number | null {
  let latest: HistoryTrain | null = null;
  for (const row of rows) if (typeof row.windowAfter === 'number' && (latest === null || row.time >= latest.time)) latest = row;
  const after = latest?.windowAfter;
  return typeof after === 'number' && Number.isInteger(after) && after > 0 ? after : null;
}

/**
 * The job records, and what `land gc` kept of the finished jobs it pruned (formats/prunedJob.ts):
 * the figures of a job do not change when gc prunes its record. A record still here wins; a job
 * kept twice (two clones' gc) counts once.
 */
export function withPruned(records: readonly JobRecord[], pruned: readonly JobRecord[]): JobRecord[] {
  const ids = new Set(records.map((job) => job.id));
  const kept = new Map<string, JobRecord>();
  for (const job of pruned) if (!ids.has(job.id)) kept.set(job.id, job);
  return [...records, ...kept.values()];
}

/** window.json, or null with a problem noted when it is corrupt: the other figures do not need it. */
function readWindowLeniently(store: QueueStore, problems: string[]) {
  try {
    return store.readWindow();
  } catch (error) {
    if (!isLandError(error, 'corrupt')) throw error;
    problems.push(`${error.message}; the window history is left out (\`land window --reset\` starts it again)`);
    return null;
  }
}

/** The void rows' trains, and the journal's abandoned speculative trains that have no void row (written before this version). */
export function abandonedTrains(voided: readonly HistoryTrain[], fromJournal: readonly AbandonedTrain[]): AbandonedTrain[] {
  const rows = voided.map((row) => ({ train: row.train, at: row.time, members: [...row.members], reason: row.reason ?? 'unknown' }));
  const known = new Set(rows.map((row) => row.train));
  return [...rows, ...fromJournal.filter((train) => !known.has(train.train))].sort((a, b) => a.at - b.at);
}

function journalAbandoned(store: QueueStore, since: number | null): AbandonedTrain[] {
  const byTrain = new Map<string, AbandonedTrain>();
  for (const entry of store.scanJournal(ABANDONED_REASON)) {
    const detail = journalDetail(entry, 'requeued');
    // `after` (the train ahead that did not land) marks an abandonment; a member put back because
    // the train ahead already holds it has the same reason and no `after`.
    if (detail?.reason !== ABANDONED_REASON || detail.after === undefined || !entry.job) continue;
    const train = detail.train ?? null;
    const at = timeOf(entry.at);
    if (!train || at === null || (since !== null && at < since)) continue;
    const known = byTrain.get(train);
    if (known) known.members.push(entry.job);
    else byTrain.set(train, { train, at, members: [entry.job], reason: ABANDONED_REASON });
  }
  return [...byTrain.values()].sort((a, b) => a.at - b.at);
}
