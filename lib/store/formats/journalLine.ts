// journal.jsonl: one line per change of a job record, appended before the record is written
// (lib/queue/transition.ts). Declared once here: the line (journalEntrySchema, read leniently: a
// line written by an earlier version may name another event or carry other details, and still
// reads), every event name this version writes (JOURNAL_EVENTS), and each event's `detail`
// (journalDetailSchemas). Writers take a JournalDetailOf<event>; readers narrow a line's detail by
// its event with journalDetail(), never by a cast.
import { z } from 'zod';
import { fastPathRefusalSchema } from './gateRecords.js';
import { jobStateSchema } from './jobRecord.js';

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

const text = z.string();
const maybe = z.string().nullable();
/** A conflict skip as the journal keeps it, so `land why` can name the paths long after. */
const conflictFields = { against: z.enum(['target', 'train']).optional(), paths: z.array(z.string()).optional(), head: z.string().optional() };
/** What `land reconcile` adds to the line of a change it makes (lib/reconcile/changes.ts). */
const reconcileFields = {
  check: text.optional(),
  key: text.optional(),
  message: text.optional(),
  repair: text.optional(),
  /** A ledger line found again (true); a failed change's `found` (what a bad tip is) when reconcile re-journals one. */
  found: z.union([z.boolean(), z.string()]).optional(),
  previous: text.optional(),
  decided: text.optional(),
  by: maybe.optional(),
};
/** A fast-path decision (the job record's `fastPath`, gateRecords.ts), its fields of both outcomes in one object. */
const fastPathDetail = z.looseObject({
  alone: z.boolean(),
  source: z.enum(['proof', 'cache']).optional(),
  proofSource: z.enum(['train', 'local']).nullable().optional(),
  refusal: fastPathRefusalSchema.optional(),
  tree: maybe,
  base: text,
  checkedAt: text,
  cachedFrom: maybe.optional(),
  cachedLog: maybe.optional(),
});

/**
 * Why a train's tree was gated again after a FAIL (landing/plan/flakyPlan.ts): the fixed allowance
 * of retries.flaky, or the evidence rule with the posterior that the train held a culprit. The
 * journal's `gate_rerun` line carries the same fields (optional there: lines written before them).
 */
const rerunByAllowance = { rule: z.literal('retries'), allowance: z.number() };
/** `sibling`: the jobs of the waiting other half of the failed train this one was split from, whose failure counted too. */
const rerunByEvidence = { rule: z.literal('evidence'), threshold: z.number(), posterior: z.number(), sibling: z.number().optional() };
const rerunReasonSchema = z.discriminatedUnion('rule', [z.object(rerunByAllowance), z.object(rerunByEvidence)]);
export type RerunReason = z.infer<typeof rerunReasonSchema>;

/** Each event this version writes, and its line's `detail`. */
export const journalDetailSchemas = {
  /** `follows`: the failed job of the same branch this one was submitted after (jobRecord.ts). */
  submitted: z.looseObject({ branch: text, tip: text, follows: text.optional() }),
  train_started: z.looseObject({ batch: text, attempt: z.number(), train: text }),
  requeued: z.looseObject({
    reason: text,
    ...conflictFields,
    targetCheck: z.record(z.string(), z.unknown()).optional(),
    /** A member put back by an abandoned speculative train: the train, and the train ahead that did not land. */
    train: text.optional(),
    after: text.optional(),
    why: text.optional(),
  }),
  failed: z.looseObject({ reason: text, code: text, message: text, ...conflictFields, tip: text.optional(), found: text.optional() }),
  canceled: z.looseObject({ by: maybe }),
  stop_requested: z.looseObject({ kind: z.enum(['cancel', 'preempt']), by: text, forJob: maybe.optional() }),
  tip_updated: z.looseObject({ from: text, to: text }),
  retried: z.looseObject({ by: text, previousState: text, previousReason: maybe, tip: text }),
  resubmitted: z.looseObject({ by: text, previousState: text, previousReason: maybe, tip: text }),
  landing: z.looseObject({ train: text, base: text }),
  landed: z.looseObject({ train: text, via: text }),
  /** Landed by recovery (its train was found in the target), or found already in the target. */
  recovered_landed: z.looseObject({ train: text, via: text }),
  already_contained: z.looseObject({ train: text, via: text }),
  culprit_found: z.looseObject({ batch: text }),
  target_red: z.looseObject({ batch: text }),
  fast_path_checked: fastPathDetail,
  fast_path_taken: fastPathDetail,
  judged_from_cache: fastPathDetail,
  regated: z.looseObject({}),
  ledger_observed: z.looseObject({ train: text }),
  gate_rerun: z.looseObject({
    train: text,
    run: z.number(),
    failedRun: z.number(),
    gate: maybe,
    status: maybe,
    cached: z.boolean(),
    log: maybe,
    /** Jobs on the train (absent on lines written before batches were re-gated: 1). */
    members: z.number().optional(),
    /** Why it was gated again (absent on earlier lines: the fixed allowance). */
    rule: z.union([rerunByAllowance.rule, rerunByEvidence.rule]).optional(),
    allowance: rerunByAllowance.allowance.optional(),
    threshold: rerunByEvidence.threshold.optional(),
    posterior: rerunByEvidence.posterior.optional(),
    sibling: rerunByEvidence.sibling,
  }),
  gate_flaky: z.looseObject({
    gate: text,
    tree: text,
    train: text,
    failedRun: z.number(),
    failedTrain: text,
    status: maybe,
    passedRun: z.number(),
  }),
  /** The target check for this job (policy flaky) saw a gate fail on the target's tree, then pass on a re-run of it. */
  target_flaky: z.looseObject({
    gate: text,
    tree: text,
    train: text,
    failedRun: z.number(),
    status: maybe,
    passedRun: z.number(),
  }),
  /**
   * Optimistic clearing (policy flaky.clearing): train `train` failed (`gate`, `status`, `log`) with
   * this job on it, and train `by`, built on it, passed: the job landed with `by`'s members.
   */
  cleared: z.looseObject({ train: text, by: text, gate: maybe, status: maybe, log: maybe }),
  uncertain: z.looseObject(reconcileFields),
  /** A change `land reconcile` made: the change's own detail (landed, requeued, canceled) and the finding. */
  reconciled: z.looseObject({ ...reconcileFields, train: text.optional(), via: text.optional(), reason: text.optional() }),
  resolved: z.looseObject({ by: text, to: text, was: maybe, message: text }),
  rebuilt: z.looseObject({ lines: z.number() }),
  /** `land gc` pruned the job (in this clone, or in another: its ref vanished from the remote). Its record is gone for good: never rebuilt. */
  pruned: z.looseObject({ by: z.enum(['gc', 'remote']) }),
} satisfies Record<string, z.ZodType<Record<string, unknown>>>;

export type JournalEvent = keyof typeof journalDetailSchemas;
export const JOURNAL_EVENTS = Object.keys(journalDetailSchemas) as JournalEvent[];

/** The `detail` a writer gives the line of event E. */
export type JournalDetailOf<E extends JournalEvent> = z.infer<(typeof journalDetailSchemas)[E]>;

/** An event and its detail, as a writer gives them (a discriminated union: the detail follows the event). */
export type JournalEventDetail = { [E in JournalEvent]: { event: E; detail?: JournalDetailOf<E> } }[JournalEvent];

/** A journal line as a writer appends it: its event one this version writes (its detail is typed by the JobChange that made it). */
export type JournalLine = {
  at: string;
  kind: JournalEntry['kind'];
  job: string | null;
  from: JournalEntry['from'];
  to: JournalEntry['to'];
  event: JournalEvent;
  detail: Record<string, unknown>;
  record?: Record<string, unknown>;
  set?: Record<string, unknown>;
  unset?: string[];
};

/**
 * The detail of `entry` when it is a line of `event`, each field kept only when it has the type this
 * version writes (a line of an earlier version may lack fields or hold others); null for another event.
 */
export function journalDetail<E extends JournalEvent>(entry: JournalEntry, event: E): Partial<JournalDetailOf<E>> | null {
  if (entry.event !== event) return null;
  const shape: Record<string, z.ZodType> = journalDetailSchemas[event].shape;
  const detail: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry.detail)) {
    const field = shape[key];
    if (!field || field.safeParse(value).success) detail[key] = value;
  }
  // Each field kept was checked above by its own schema: the object has the partial detail's type.
  return detail as Partial<JournalDetailOf<E>>;
}
