// A metrics row (metrics.jsonl: one per train) as the failure story reads it. Rows written before
// trains named their branches, tips and log lack those fields: they are optional here, and what
// needs them (`land repro`) says so instead of guessing.
import { z } from 'zod';
import {
  cachedGateTelemetrySchema,
  failedRefreshSchema,
  GATE_TELEMETRY_MODES,
  gateResultSchema as writtenResultSchema,
  ranGateTelemetrySchema,
} from '../store/index.js';

// The gate telemetry the drain writes is GateTelemetry (lib/store/recordParts.ts). A row is read
// leniently: every field is optional (old rows lack some), and each has the type the drain writes.
const gateResultSchema = writtenResultSchema.partial({ outcome: true, seconds: true });

const telemetrySchema = z.looseObject({
  mode: z.enum(GATE_TELEMETRY_MODES).optional(),
  source: cachedGateTelemetrySchema.shape.source,
  cachedFrom: cachedGateTelemetrySchema.shape.cachedFrom,
  selected: ranGateTelemetrySchema.shape.selected,
  executed: ranGateTelemetrySchema.shape.executed.optional(),
  results: z.array(gateResultSchema).optional(),
  gatesHash: ranGateTelemetrySchema.shape.gatesHash,
  refreshed: ranGateTelemetrySchema.shape.refreshed,
  refresh: failedRefreshSchema.partial().optional(),
});

export const trainRowSchema = z
  .object({
    at: z.string().optional(),
    train: z.string(),
    batch: z.string().optional(),
    attempt: z.number().optional(),
    kind: z.string().optional(),
    members: z.array(z.string()),
    branches: z.array(z.string()).optional(),
    tips: z.array(z.string()).optional(),
    base: z.string().optional(),
    commit: z.string().optional(),
    tree: z.string().optional(),
    gateSeconds: z.number().optional(),
    cached: z.boolean().optional(),
    log: z.string().nullable().optional(),
    gate: telemetrySchema.nullable().optional(),
    verdict: z.string(),
    reason: z.string().nullable().optional(),
    landed: z.boolean().optional(),
  })
  .loose();

export type TrainRow = z.infer<typeof trainRowSchema>;
export type GateResultRow = z.infer<typeof gateResultSchema>;

/** The rows that have the shape of a train row; the others are counted, not thrown. */
export function parseTrainRows(raw: readonly unknown[]): { rows: TrainRow[]; unreadable: number } {
  const rows: TrainRow[] = [];
  let unreadable = 0;
  for (const value of raw) {
    const parsed = trainRowSchema.safeParse(value);
    if (parsed.success) rows.push(parsed.data);
    else unreadable += 1;
  }
  return { rows, unreadable };
}

/** A gate result that is not a pass (`exit 0`). */
export function isFailedResult(result: GateResultRow): boolean {
  return !(result.status === 'exit 0' && (result.outcome === undefined || result.outcome === 'exited'));
}
