// A job record (jobs/<id>.json): one file per job, rewritten under the queue lock, every change
// journaled first (journalLine.ts). Every field this version writes is declared; a field that
// records written by an earlier version lack is optional.
import { z } from 'zod';
import { fastPathRecordSchema, flakyRecordSchema, gateTelemetrySchema, ledgerObservationsSchema, objectIdSchema, trainRunsSchema } from './gateRecords.js';

export const JOB_ID_PATTERN = /^[a-z0-9-]+$/;
export const jobIdSchema = z.string().regex(JOB_ID_PATTERN, 'expected lowercase letters, digits and dashes');

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
  base: objectIdSchema,
  paths: z.array(z.string()),
  checkedAt: z.string(),
  against: z.enum(['target', 'train']),
});

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
    tip: objectIdSchema,
    title: z.string(),
    submitter: z.string(),
    priority: z.enum(['normal', 'urgent']),
    order: z.string(),
    requeued: z.boolean(),
    state: jobStateSchema,
    /** Any string: records of earlier versions may hold a reason no longer written (jobReason.ts: writers write a JobReason). */
    reason: z.string().nullable(),
    error: jobErrorSchema.nullable(),
    attempts: z.number().int().nonnegative(),
    requeues: z.record(z.string(), z.number().int().nonnegative()),
    batch: batchRefSchema.nullable(),
    stopRequest: stopRequestSchema.nullable(),
    conflictPreview: conflictPreviewSchema.nullable(),
    verdict: z.enum(['PASS', 'FAIL']).nullable(),
    base: objectIdSchema.nullable(),
    tree: objectIdSchema.nullable(),
    train: objectIdSchema.nullable(),
    landedVia: z.string().nullable(),
    gateLog: z.string().nullable(),
    /**
     * The failed job this one follows: the same branch's latest job when this one was submitted at
     * a new tip, if that job had failed. Absent otherwise, and in records written before it existed.
     */
    follows: jobIdSchema.optional(),
    /**
     * A failed job whose failure a gate decided: the excerpt (the lines that carry the failure,
     * then the last lines; at most 20, each at most 300 characters; lib/landing/gates/excerpt.ts)
     * of that gate's output in the stored, redacted log. Absent otherwise, and once
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
