// Every state file's shape, declared once. Records are parsed with these on read; a file that does
// not parse is reported by name (see fileStore.listJobs) and never silently reset.
import { z } from 'zod';
import {
  fastPathRecordSchema,
  flakyRecordSchema,
  gateTelemetrySchema,
  ledgerObservationsSchema,
  objectIdSchema,
  trainRunsSchema,
  type GateRun,
  type GateTelemetry,
} from './recordParts.js';

export const JOB_ID_PATTERN = /^[a-z0-9-]+$/;
export const jobIdSchema = z.string().regex(JOB_ID_PATTERN, 'expected lowercase letters, digits and dashes');
const sha = objectIdSchema;

export const JOB_STATES = ['queued', 'in_progress', 'landed', 'failed', 'canceled', 'uncertain'] as const;
export const jobStateSchema = z.enum(JOB_STATES);
export type JobState = z.infer<typeof jobStateSchema>;
export const TERMINAL_STATES: readonly JobState[] = ['landed', 'failed', 'canceled'];

export const batchRefSchema = z.object({
  id: jobIdSchema,
  members: z.array(jobIdSchema),
  attempt: z.number().int().positive(),
  index: z.number().int().nonnegative(),
  /** The train the job rides now (its log is logs/<train>.log); absent once it is back in the queue. */
  train: z.string().optional(),
});
export type BatchRef = z.infer<typeof batchRefSchema>;

export const stopRequestSchema = z.object({
  kind: z.enum(['cancel', 'preempt']),
  by: z.string(),
  forJob: jobIdSchema.nullable(),
  at: z.string(),
});
export type StopRequest = z.infer<typeof stopRequestSchema>;

export const conflictPreviewSchema = z.object({
  base: sha,
  paths: z.array(z.string()),
  checkedAt: z.string(),
  against: z.enum(['target', 'train']),
});
export type ConflictPreview = z.infer<typeof conflictPreviewSchema>;

export const jobErrorSchema = z.object({ code: z.string(), message: z.string() });

export const timestampsSchema = z
  .object({
    queued: z.string(),
    started: z.string().optional(),
    landed: z.string().optional(),
    failed: z.string().optional(),
    canceled: z.string().optional(),
    /** The last time `land retry` or a resubmit reopened the job (its earlier ending is in the journal). */
    reopened: z.string().optional(),
  })
  .loose();

// Every field this version writes is declared; a field that records written by an earlier version
// lack is optional. Loose: fields a later version adds survive a read-modify-write by this one.
export const jobRecordSchema = z
  .object({
    version: z.literal(1),
    id: jobIdSchema,
    /** The target branch the job lands on; records written before jobs named one belong to the default target. */
    target: z.string().optional(),
    branch: z.string().min(1),
    tip: sha,
    title: z.string(),
    submitter: z.string(),
    priority: z.enum(['normal', 'urgent']),
    order: z.string(),
    requeued: z.boolean(),
    state: jobStateSchema,
    reason: z.string().nullable(),
    error: jobErrorSchema.nullable(),
    attempts: z.number().int().nonnegative(),
    requeues: z.record(z.string(), z.number().int().nonnegative()),
    batch: batchRefSchema.nullable(),
    stopRequest: stopRequestSchema.nullable(),
    conflictPreview: conflictPreviewSchema.nullable(),
    verdict: z.enum(['PASS', 'FAIL']).nullable(),
    base: sha.nullable(),
    tree: sha.nullable(),
    train: sha.nullable(),
    landedVia: z.string().nullable(),
    gateLog: z.string().nullable(),
    /**
     * A failed job whose failure a gate decided: the last lines (at most 20, each at most 300
     * characters) of that gate's output in the stored, redacted log. Absent otherwise, and once
     * `land retry` reopens the job. Gate logs stay on the drainer: this is what other clones see.
     */
    gateLogTail: z.array(z.string()).optional(),
    /** How the verdict of the job's last judged train was reached. */
    gate: gateTelemetrySchema.nullable(),
    /** The last fast-path decision; absent until the job was first the head of the queue. */
    fastPath: fastPathRecordSchema.optional(),
    /** Set by a reopen (`land retry`, a resubmit): the next train holding the job runs its gates, a cached FAIL does not bind it. */
    regate: z.boolean().optional(),
    /** The ledger lines of the batch stages of the last train that ran any, by gate name. */
    ledger: ledgerObservationsSchema.optional(),
    /** Set when the job landed after a flaky re-run: the gate that failed, the run that failed and the one that passed. */
    flaky: flakyRecordSchema.optional(),
    /** How often the last train the job rode was gated (at most five times in all); absent before that. */
    trainRuns: trainRunsSchema.optional(),
    timestamps: timestampsSchema,
  })
  .loose();
export type JobRecord = z.infer<typeof jobRecordSchema>;

/**
 * One row of metrics.jsonl as the drain writes it: one per judged train, appended under the same
 * hold of the queue lock as the members' records. Readers parse rows leniently (lib/story/trainRow.ts,
 * lib/landing/plan/eta.ts): rows written by earlier versions lack `kind`, `branches`, `tips` and `log`.
 */
export type TrainMetricRow = {
  at: string;
  train: string;
  batch: string;
  attempt: number;
  kind: 'fast-forward' | 'merge';
  /** Member job ids, branches and the tips that were merged, in merge order. */
  members: string[];
  branches: string[];
  tips: string[];
  base: string;
  commit: string;
  tree: string;
  gateSeconds: number;
  cached: boolean;
  /** The log that holds the gates' output (the judging train's, for a cached verdict). */
  log: string | null;
  gate: GateTelemetry;
  verdict: 'PASS' | 'FAIL' | 'INFRA';
  /** Why a train did not land: the failure's reason, target_red, cas_lost, target_dirty; null when it landed. */
  reason: string | null;
  windowBefore: number;
  windowAfter: number;
  landed: boolean;
  /** True when a gate failed and a re-run of the same tree passed (retries.flaky); absent on earlier rows. */
  flaky?: boolean;
  /**
   * Every gate run of this train, oldest first, when it ran more than once (flaky re-runs; `gateSeconds`
   * is their sum). Absent: the train ran at most once, its gates' results in `gate.results`.
   */
  runs?: GateRun[];
};

export const windowHistorySchema = z.object({
  at: z.string(),
  event: z.enum(['PASS', 'FAIL', 'set', 'reset', 'clamp']),
  before: z.number().int(),
  after: z.number().int(),
  train: z.string().nullable(),
  /** Who set or reset it (git user.email, else user.name, else $USER); absent for a train's change. */
  by: z.string().optional(),
  /** A train that decided jobs: how many (landed, or failed alone), and how many of them were culprits. */
  jobs: z.number().int().nonnegative().optional(),
  culprits: z.number().int().nonnegative().optional(),
});
export const windowStateSchema = z.object({
  size: z.number().int().positive(),
  history: z.array(windowHistorySchema),
});
export type WindowState = z.infer<typeof windowStateSchema>;
export type WindowHistoryEntry = z.infer<typeof windowHistorySchema>;

export const verdictSchema = z
  .object({
    tree: sha,
    gatesHash: z.string(),
    verdict: z.enum(['PASS', 'FAIL']),
    /** The failing gate's name. */
    reason: z.string().nullable(),
    /** How it failed ("exit 1", "timed out"), and the kind of failure. */
    status: z.string().nullable().optional(),
    failReason: z.enum(['gate', 'timeout', 'no_ledger_line']).nullable().optional(),
    seconds: z.number().nonnegative(),
    at: z.string(),
    train: z.string(),
    log: z.string().nullable(),
  })
  .loose();
export type VerdictRecord = z.infer<typeof verdictSchema>;

export const journalEntrySchema = z
  .object({
    at: z.string(),
    kind: z.enum(['transition', 'update']),
    job: z.string().nullable(),
    from: jobStateSchema.nullable(),
    to: jobStateSchema.nullable(),
    event: z.string(),
    detail: z.record(z.string(), z.unknown()),
    /** The `submitted` line: the record as it was first written (the start of a rebuild). */
    record: z.record(z.string(), z.unknown()).optional(),
    /** Every later line: the fields the change set (state aside, which is `to`). Lines written before rebuilds lack it. */
    set: z.record(z.string(), z.unknown()).optional(),
    /** Fields the change removed from the record. */
    unset: z.array(z.string()).optional(),
  })
  .loose();
export type JournalEntry = z.infer<typeof journalEntrySchema>;

export const drainHolderSchema = z.object({
  pid: z.number().int(),
  host: z.string(),
  /** Names this holding of the lock (not a secret: the landing token is never written). */
  id: z.string(),
  /** The holder's start time (/proc/<pid>/stat field 22), so a reused pid is not taken for it. */
  start: z.string().optional(),
  since: z.string(),
});
export type DrainHolder = z.infer<typeof drainHolderSchema>;

// gate-passes/<commit>.json: which gates (by name, with the hash of that one gate's definition)
// passed on a commit, so a path-scoped gate can count an ancestor's PASS (selective gates).
export const gatePassesSchema = z.object({
  commit: sha,
  gates: z.record(z.string(), z.string()),
});
export type GatePasses = z.infer<typeof gatePassesSchema>;

// hooks.json: where `land hooks install` wrote the hook protecting the target, and the sha256 of
// what it wrote, so `land run` can check before each landing that git still runs that very hook
// (lib/hooks/guard.ts). No file: no hook installed, nothing to check.
export const protectHookSchema = z.object({
  /** The hooks folder it was written to (absolute, as git named it at install time). */
  dir: z.string().min(1),
  hook: z.literal('reference-transaction'),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  target: z.string().min(1),
  installedAt: z.string(),
});
export type ProtectHook = z.infer<typeof protectHookSchema>;
