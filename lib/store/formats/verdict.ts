// verdicts/<tree>-<gates hash>.json: the verdict cache, one entry per judged tree and gate set. A
// corrupt entry is a miss (the gates run again), never an error.
import { z } from 'zod';
import { objectIdSchema } from './gateRecords.js';

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
  })
  .loose();
export type VerdictRecord = z.infer<typeof verdictSchema>;
