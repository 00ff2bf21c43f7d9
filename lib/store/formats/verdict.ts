// verdicts/<tree>-<gates hash>.json: the verdict cache, one entry per judged tree and gate set. A
// corrupt entry is a miss (the gates run again), never an error; so is a voided one.
import { z } from 'zod';
import { objectIdSchema } from './gateRecords.js';

/**
 * Why a cached FAIL is no longer trusted. `why` is `target_red`: the drain that wrote it (or that
 * read it) stopped because the target itself failed, so the FAIL may be the environment's
 * (docs/drain.md#a-red-target). `train`: the train whose stop voided it.
 */
export const verdictVoidSchema = z.looseObject({ at: z.string(), why: z.string(), train: z.string().nullable() });
export type VerdictVoid = z.infer<typeof verdictVoidSchema>;

export const verdictSchema = z
  .object({
    tree: objectIdSchema,
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
    /** Set on a FAIL that is no longer trusted (kept so `land verdicts` can show it); absent in older entries. */
    voided: verdictVoidSchema.nullable().optional(),
  })
  .loose();
export type VerdictRecord = z.infer<typeof verdictSchema>;

/** Whether the drain may act on this entry: a voided FAIL is a miss, as a corrupt entry is. */
export const trustedVerdict = (record: VerdictRecord | null): VerdictRecord | null => (record && !record.voided ? record : null);
