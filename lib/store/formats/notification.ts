// The event a `notify` command of the policy reads on its standard input: one JSON object
// (docs/policy.md#notify). Declared once here: the drain builds it (lib/landing/notify/), a
// notifier script may validate against it; a field added later is optional, so a script written
// for this version keeps working.
import { z } from 'zod';

/** The events a notification is sent for, and so the events a policy's `notify` entry may name (lib/config/schema.ts). */
export const NOTIFICATION_EVENTS = ['landed', 'failed', 'uncertain', 'stopped'] as const;

/** The job an event is about (absent for `stopped`). */
export const notifiedJobSchema = z.object({
  id: z.string(),
  branch: z.string(),
  /** The commit that was queued. */
  tip: z.string(),
  title: z.string(),
  submitter: z.string(),
  /** landed, failed, uncertain. */
  state: z.string(),
  /** Why it failed (gate, timeout, conflict, ...), how it landed (merge, fast-forward, contained), or null. */
  reason: z.string().nullable(),
  /** The one-line message of its failure; null otherwise. */
  message: z.string().nullable(),
  /** When it was queued, and when it ended (ISO times). */
  queuedAt: z.string(),
  endedAt: z.string().nullable(),
});

/** The gate that failed the job: its name, how it ended, its log on the drainer and the log lines that carry the failure. */
export const notifiedGateSchema = z.object({
  name: z.string().nullable(),
  status: z.string().nullable(),
  log: z.string().nullable(),
  excerpt: z.array(z.string()),
});

export const notificationSchema = z.object({
  /** The schema's version: 1. */
  version: z.literal(1),
  event: z.enum(NOTIFICATION_EVENTS),
  /** When the drain saw the event (ISO time). */
  at: z.string(),
  /** The target branch. */
  target: z.string(),
  job: notifiedJobSchema.nullable(),
  /** The train that landed or failed the job (its id), or null. */
  train: z.string().nullable(),
  /** The target's new tip when the job landed; null otherwise. */
  commit: z.string().nullable(),
  /** For a job failed by a gate; null otherwise. */
  gate: notifiedGateSchema.nullable(),
  /** For `stopped`: why the drain stopped (target_red, target_dirty, hook_off, lock_lost, interrupted, or an error's code: internal for a bug) and its one line. */
  stopped: z.object({ why: z.string(), message: z.string() }).nullable(),
});
export type Notification = z.infer<typeof notificationSchema>;
export type NotificationEvent = Notification['event'];
