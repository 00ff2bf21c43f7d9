// The nested parts of a job record that the drain writes, declared once: the gate telemetry (how a
// verdict was reached; also in every metrics row), the fast-path decision and the ledger lines of
// batch stages. A field that records written by an earlier version lack is optional, so every
// existing state folder still parses; the objects are loose, so a later version's fields survive
// a read-modify-write by this one.
import { z } from 'zod';
import { ledgerLineSchema } from './ledgerLine.js';

export const objectIdSchema = z.string().regex(/^[0-9a-f]{40,64}$/, 'expected a full object id');
const verdict = z.enum(['PASS', 'FAIL']);

// ---- gate telemetry --------------------------------------------------------------------------

/** How a gate's process ended (lib/landing/gates/processGroup.ts GroupOutcome kinds). */
export const GATE_OUTCOMES = ['exited', 'signaled', 'timeout', 'stopped', 'spawn_failed'] as const;

/** One gate that ran: "exit 0", "exit 1", "timed out", "could not start: ...". */
export const gateResultSchema = z.looseObject({
  name: z.string(),
  outcome: z.enum(GATE_OUTCOMES),
  status: z.string(),
  seconds: z.number(),
  /** The gate's own hash (`gatesHash([gate])`): expected times count only runs of its current definition. Absent on earlier rows. */
  hash: z.string().optional(),
  /** The policy marks the gate advisory (quarantined): it ran, and its failure did not decide the verdict. Absent: it counted. */
  advisory: z.literal(true).optional(),
});
export type GateResult = z.infer<typeof gateResultSchema>;

/** What the selection decided for one train (lib/landing/gates/selection.ts planSelection); a proof keeps it too. */
export const selectionTelemetrySchema = z.looseObject({
  mode: z.enum(['full', 'selective']),
  planBase: objectIdSchema,
  /** Gates that run, in policy order. */
  selected: z.array(z.string()),
  /** Gates that did run (filled in by the runner). */
  executed: z.array(z.string()),
  /** Gates skipped because a PASS on an ancestor still counts. */
  cached: z.array(z.looseObject({ gate: z.string(), from: objectIdSchema })),
  /** Why each selected gate runs. */
  missReasons: z.record(z.string(), z.string()),
  /** Set when the selection could not be computed and every gate runs. */
  fallbackReason: z.string().nullable(),
});
export type SelectionTelemetry = z.infer<typeof selectionTelemetrySchema>;

/**
 * The trusted paths (policy `trusted`) a train changes: restored from the target before its gates,
 * so the gates ran on `gatedTree`, not the train's tree. `byJob`: which member changes which.
 */
export const trustedTelemetrySchema = z.looseObject({
  gatedTree: objectIdSchema,
  restored: z.array(z.string()),
  byJob: z.record(z.string(), z.array(z.string())),
});
export type TrustedTelemetry = z.infer<typeof trustedTelemetrySchema>;

/**
 * A verdict reached without running a gate: a lone job's fast path (`source` proof, or cache with a
 * cached PASS of its tree) or the verdict cache's record of the train's tree (`cachedFrom`: the
 * train that ran the gates, `cachedVerdict`, `cachedLog`: its log). Records written before proofs
 * have no source, plan base or verdict.
 */
export const cachedGateTelemetrySchema = z.looseObject({
  mode: z.literal('cached'),
  source: z.enum(['proof', 'cache']).optional(),
  proofSource: z.enum(['train', 'local']).nullable().optional(),
  cachedFrom: z.string().optional(),
  cachedVerdict: verdict.optional(),
  cachedLog: z.string().nullable().optional(),
  planBase: objectIdSchema.optional(),
  executed: z.array(z.string()),
  gatesHash: z.string().optional(),
  trusted: trustedTelemetrySchema.optional(),
});
export type CachedGateTelemetry = z.infer<typeof cachedGateTelemetrySchema>;

/** A refresh entry that failed before any gate ran (lib/landing/gates/refresh.ts). */
export const failedRefreshSchema = z.looseObject({ kind: z.literal('failed'), entry: z.string(), status: z.string() });

/**
 * The gates were planned (and ran, unless every one kept an ancestor's PASS): the selection plus
 * what ran. Without the selection's fields when nothing could be planned (the train's worktree
 * could not be made, a refresh entry failed or was stopped) and in records written before
 * selective gates.
 */
export const ranGateTelemetrySchema = selectionTelemetrySchema
  .partial({ planBase: true, selected: true, cached: true, missReasons: true, fallbackReason: true })
  .extend({
    /** Every gate that ran, in order, with how it ended. */
    results: z.array(gateResultSchema).optional(),
    gatesHash: z.string().optional(),
    /** The refresh entries that changed the train before its gates ran. */
    refreshed: z.array(z.string()).optional(),
    /** The refresh entry that failed (the train's verdict is FAIL, no gate ran). */
    refresh: failedRefreshSchema.optional(),
    trusted: trustedTelemetrySchema.optional(),
  });
export type RanGateTelemetry = z.infer<typeof ranGateTelemetrySchema>;

/** Records written before selective gates: a policy without gates. */
const noGateTelemetrySchema = z.looseObject({
  mode: z.literal('none'),
  executed: z.array(z.string()),
  gatesHash: z.string().optional(),
});

/** How a train's verdict was reached: the job record's `gate` and the metrics row's `gate`. */
export const gateTelemetrySchema = z.discriminatedUnion('mode', [cachedGateTelemetrySchema, ranGateTelemetrySchema, noGateTelemetrySchema]);
export type GateTelemetry = z.infer<typeof gateTelemetrySchema>;
export type GateTelemetryMode = GateTelemetry['mode'];
export const GATE_TELEMETRY_MODES = ['cached', 'full', 'selective', 'none'] as const satisfies readonly GateTelemetryMode[];

// ---- the fast-path decision ------------------------------------------------------------------

/** Why a proof does not let a tree skip its gates (lib/landing/proofs/proof.ts proofRefusal). */
export const PROOF_REFUSAL_KINDS = ['no_pass', 'corrupt', 'untrusted_source', 'gates_changed', 'target_moved', 'log_missing'] as const;
export type ProofRefusal = (typeof PROOF_REFUSAL_KINDS)[number];

export const fastPathRefusalSchema = z.enum([
  ...PROOF_REFUSAL_KINDS,
  /** The tip conflicts with the target: there is no merged tree to look up. */
  'conflict',
  /** The verdict cache holds a FAIL for this tree under these gates. */
  'cached_fail',
  /** policy.proof.enabled is false and the verdict cache has no PASS. */
  'proofs_disabled',
  /** A local proof was made without the refresh entries that this change triggers. */
  'refresh_pending',
  /** The proof tested the tip's own trusted paths, not the target's versions the gates now use (policy `trusted`). */
  'trusted_restored',
]);
export type FastPathRefusal = z.infer<typeof fastPathRefusalSchema>;

/**
 * The job record's `fastPath`: the last fast-path decision about the job, made when it was the head
 * of the queue, or when its lone train was judged from a cache. A cached FAIL is no fast path taken:
 * `{alone: false, refusal: 'cached_fail', cachedFrom, cachedLog}`.
 */
export const fastPathRecordSchema = z.discriminatedUnion('alone', [
  z.looseObject({
    alone: z.literal(true),
    source: z.enum(['proof', 'cache']),
    proofSource: z.enum(['train', 'local']).nullable(),
    tree: objectIdSchema,
    base: objectIdSchema,
    checkedAt: z.string(),
  }),
  z.looseObject({
    alone: z.literal(false),
    refusal: fastPathRefusalSchema,
    tree: objectIdSchema.nullable(),
    base: objectIdSchema,
    checkedAt: z.string(),
    /** For a cached FAIL: the train that ran the gates on this tree, and its log. */
    cachedFrom: z.string().nullable().optional(),
    cachedLog: z.string().nullable().optional(),
  }),
]);
export type FastPathRecord = z.infer<typeof fastPathRecordSchema>;

// ---- ledger lines of batch stages ------------------------------------------------------------

/** A batch stage ran but its ledger line was not found (or the ledger could not be read). */
export const missingLedgerLineSchema = z.looseObject({
  missing: z.literal(true),
  ledgerDir: z.string().nullable(),
  error: z.string().optional(),
});
export type MissingLedgerLine = z.infer<typeof missingLedgerLineSchema>;

/** What a train found in the ledger for one batch stage: its ledger line (lib/ledger), or why none. */
export const ledgerObservationSchema = z.union([ledgerLineSchema, missingLedgerLineSchema]);
export type LedgerObservation = z.infer<typeof ledgerObservationSchema>;

export function isMissingLedgerLine(observation: LedgerObservation): observation is MissingLedgerLine {
  return observation.missing === true;
}

/** The job record's `ledger`: by gate name, the observation of each batch stage that ran. */
export const ledgerObservationsSchema = z.record(z.string(), ledgerObservationSchema);
export type LedgerObservations = z.infer<typeof ledgerObservationsSchema>;

// ---- flaky gates (policy flaky) --------------------------------------------------------------

/**
 * One gate run of a train (its first run, or a flaky re-run: lib/landing/plan/flakyPlan.ts). `run`
 * counts from 1 within the train; a verdict taken from the cache is a run of the train that judged
 * the tree (`cached`, `train` naming it), no gate ran. `results`: how each gate that ran ended.
 */
export const gateRunSchema = z.looseObject({
  run: z.number().int().positive(),
  train: z.string(),
  cached: z.boolean(),
  verdict: z.enum(['PASS', 'FAIL', 'INFRA', 'STOPPED']),
  /** The failure's reason (gate, timeout, ...) and the deciding gate; null for PASS. */
  reason: z.string().nullable(),
  gate: z.string().nullable(),
  status: z.string().nullable(),
  seconds: z.number(),
  log: z.string().nullable(),
  results: z.array(gateResultSchema),
});
export type GateRun = z.infer<typeof gateRunSchema>;

/**
 * The job record's `flaky`: a gate failed on the train's tree and a re-run of the same tree passed,
 * so the job landed and the gate is recorded as flaky for that tree. `failed` is the (last) run that
 * failed, `passed` the run that passed.
 */
export const flakyRecordSchema = z.looseObject({
  gate: z.string(),
  tree: objectIdSchema,
  train: z.string(),
  failed: gateRunSchema,
  passed: gateRunSchema,
});
export type FlakyRecord = z.infer<typeof flakyRecordSchema>;

/**
 * The job record's `trainRuns`: how often the last train identity the job rode (`key`: its base and
 * its members at their tips) was gated with an outcome, how many of those runs were flaky re-runs,
 * and how many failed (the flake evidence a later drain starts from; absent on records written
 * before: 0). A train is gated at most five times in all (lib/landing/plan/flakyPlan.ts).
 */
export const trainRunsSchema = z.looseObject({
  key: z.string(),
  runs: z.number().int().nonnegative(),
  reruns: z.number().int().nonnegative(),
  fails: z.number().int().nonnegative().optional(),
});
export type TrainRuns = z.infer<typeof trainRunsSchema>;
