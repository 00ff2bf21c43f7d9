// metrics.jsonl: one row per judged train, appended by the drain under the same hold of the queue
// lock as its members' records (lib/landing/plan/settlement.ts builds it), and a row `land
// reconcile` rebuilds for a landing that has none. Declared once here:
// - metricsRowSchema: the row as this version writes it (MetricsRow, the writer's type);
// - storedMetricsRowSchema: a row as readers take it from the file. Rows written by earlier versions
//   lack fields (`kind`, `branches`, `tips`, `log`, the windows, `flaky`, `runs`), so every field but
//   a train's identity (train, members, verdict) is optional, each with the type the drain writes;
//   `kind` and `verdict` are any string and the gate telemetry's fields are optional, as old rows
//   wrote other values. The failure story and `land reconcile` read rows with it (parseMetricsRows).
// - metricsRowFieldChecks: the fast check `land stats` reads 10,000 rows with, generated from the
//   stored schema's shape (fastCheck.ts): a field of another type is dropped, the row kept.
import { z } from 'zod';
import { checkedField, fieldChecksOf } from './fastCheck.js';
import {
  cachedGateTelemetrySchema,
  failedRefreshSchema,
  GATE_TELEMETRY_MODES,
  gateResultSchema,
  gateRunSchema,
  gateTelemetrySchema,
  ranGateTelemetrySchema,
} from './gateRecords.js';

export const metricsRowSchema = z.looseObject({
  at: z.string(),
  train: z.string(),
  batch: z.string(),
  attempt: z.number().int().positive(),
  kind: z.enum(['fast-forward', 'merge']),
  /** Member job ids, branches and the tips that were merged, in merge order. */
  members: z.array(z.string()),
  branches: z.array(z.string()),
  tips: z.array(z.string()),
  base: z.string(),
  commit: z.string(),
  tree: z.string(),
  gateSeconds: z.number(),
  cached: z.boolean(),
  /** The log that holds the gates' output (the judging train's, for a cached verdict). */
  log: z.string().nullable(),
  gate: gateTelemetrySchema,
  /** VOID: the run was abandoned (reason: one of VOID_REASONS); nothing it found counts, its gate runs were spent. */
  verdict: z.enum(['PASS', 'FAIL', 'INFRA', 'VOID']),
  /** Why a train did not land: the failure's reason, target_red, cas_lost, target_dirty, or a VOID_REASONS; null when it landed. */
  reason: z.string().nullable(),
  windowBefore: z.number().int(),
  windowAfter: z.number().int(),
  landed: z.boolean(),
  /** True when a gate failed and a re-run of the same tree passed (policy flaky); absent on earlier rows. */
  flaky: z.boolean().optional(),
  /**
   * Every gate run of this train, oldest first, when it ran more than once (flaky re-runs; `gateSeconds`
   * is their sum). Absent: the train ran at most once, its gates' results in `gate.results`.
   */
  runs: z.array(gateRunSchema).optional(),
});
export type MetricsRow = z.infer<typeof metricsRowSchema>;

/**
 * Why a train's run is void (verdict VOID): a signal stopped its gates, a member was canceled or
 * stopped while they ran, it was a speculative train behind one that did not land, or it failed
 * and the train built on it passed and landed its members with its own (policy flaky.clearing).
 */
export const VOID_REASONS = ['interrupted', 'withdrawn', 'speculation_abandoned', 'cleared'] as const;
export type VoidReason = (typeof VOID_REASONS)[number];

/** Whether a stored row's run is void (its gates ran, nothing it found counts). */
export const isVoidRow = (row: { verdict?: unknown }): boolean => row.verdict === 'VOID';

/**
 * The row `land reconcile` writes for a landing that has none, rebuilt from its members' records
 * (marked `reconciled`): what the records do not say (the windows, a batch, a base) is absent.
 */
export const reconciledMetricsRowSchema = metricsRowSchema
  .partial({ batch: true, attempt: true, base: true, tree: true, windowBefore: true, windowAfter: true })
  .extend({ reconciled: z.literal(true) });
export type ReconciledMetricsRow = z.infer<typeof reconciledMetricsRowSchema>;

/** What a writer may append to metrics.jsonl. */
export type WrittenMetricsRow = MetricsRow | ReconciledMetricsRow;

// ---- reading -------------------------------------------------------------------------------------

const written = metricsRowSchema.shape;

/** A gate result as rows keep it; rows written before outcomes and durations lack them. */
export const storedGateResultSchema = gateResultSchema.partial({ outcome: true, seconds: true });
export type StoredGateResult = z.infer<typeof storedGateResultSchema>;

/** The gate telemetry of a stored row: each field of the type the drain writes, every one optional. */
export const storedTelemetrySchema = z.looseObject({
  mode: z.enum(GATE_TELEMETRY_MODES).optional(),
  source: cachedGateTelemetrySchema.shape.source,
  cachedFrom: cachedGateTelemetrySchema.shape.cachedFrom,
  selected: ranGateTelemetrySchema.shape.selected,
  executed: ranGateTelemetrySchema.shape.executed.optional(),
  results: z.array(storedGateResultSchema).optional(),
  gatesHash: ranGateTelemetrySchema.shape.gatesHash,
  refreshed: ranGateTelemetrySchema.shape.refreshed,
  refresh: failedRefreshSchema.partial().optional(),
});
export type StoredTelemetry = z.infer<typeof storedTelemetrySchema>;

/** One gate run of a stored row (`runs`): the fields the drain writes, each optional. */
export const storedGateRunSchema = gateRunSchema.partial().extend({ results: z.array(storedGateResultSchema).optional() });
export type StoredGateRun = z.infer<typeof storedGateRunSchema>;

export const storedMetricsRowSchema = z.looseObject({
  at: written.at.optional(),
  train: written.train,
  batch: written.batch.optional(),
  attempt: z.number().optional(),
  kind: z.string().optional(),
  members: written.members,
  branches: written.branches.optional(),
  tips: written.tips.optional(),
  base: written.base.optional(),
  commit: written.commit.optional(),
  tree: written.tree.optional(),
  gateSeconds: written.gateSeconds.optional(),
  cached: written.cached.optional(),
  log: written.log.optional(),
  gate: storedTelemetrySchema.nullable().optional(),
  verdict: z.string(),
  reason: written.reason.optional(),
  windowBefore: z.number().optional(),
  windowAfter: z.number().optional(),
  landed: written.landed.optional(),
  flaky: written.flaky,
  runs: z.array(storedGateRunSchema).optional(),
  reconciled: z.boolean().optional(),
});
export type StoredMetricsRow = z.infer<typeof storedMetricsRowSchema>;

/** The rows that have a train's shape (storedMetricsRowSchema); the others are counted, not thrown. */
export function parseMetricsRows(raw: readonly unknown[]): { rows: StoredMetricsRow[]; unreadable: number } {
  const rows: StoredMetricsRow[] = [];
  let unreadable = 0;
  for (const value of raw) {
    const parsed = storedMetricsRowSchema.safeParse(value);
    if (parsed.success) rows.push(parsed.data);
    else unreadable += 1;
  }
  return { rows, unreadable };
}

/** A train's identity: without these fields a row is no train's (counted unreadable by every reader). */
export const METRICS_ROW_IDENTITY = ['train', 'members', 'verdict'] as const;

/** The fast check of each field of a stored row, generated from storedMetricsRowSchema's shape. */
export const metricsRowFieldChecks = fieldChecksOf(storedMetricsRowSchema.shape);

/** The fast check of each field of a gate result in a stored row (`gate.results`). */
const gateResultFieldChecks = fieldChecksOf(storedGateResultSchema.shape);

/** One field of a stored metrics row, read on its own (fastCheck.ts checkedField); undefined when absent or of another type. */
export function metricsRowField<K extends keyof StoredMetricsRow & string>(row: Record<string, unknown>, key: K): StoredMetricsRow[K] | undefined {
  return checkedField<StoredMetricsRow, K>(metricsRowFieldChecks, row, key);
}

/** One field of a gate result of a stored row, read on its own; undefined when absent or of another type. */
export function gateResultField<K extends keyof StoredGateResult & string>(result: Record<string, unknown>, key: K): StoredGateResult[K] | undefined {
  return checkedField<StoredGateResult, K>(gateResultFieldChecks, result, key);
}
