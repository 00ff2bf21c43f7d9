// proofs/<tree>.json: a recorded PASS of the gates on a tree, tested on a given target tree
// (lib/landing/proofs/proof.ts decides whether one lets a job skip its gates), and
// proofs/tip-<tip>.json: the tree of the latest proof made for a tip.
import { z } from 'zod';
import { objectIdSchema, selectionTelemetrySchema } from './gateRecords.js';

export const proofSchema = z
  .object({
    version: z.literal(1),
    /** The tree the gates passed on: the merge of the tip onto the target, with trusted paths restored from it (the gated tree). */
    tree: objectIdSchema,
    /** The target's tree the merge was made on (the plan base). */
    planBaseTree: objectIdSchema,
    gatesHash: z.string().min(1),
    verdict: z.literal('PASS'),
    source: z.enum(['train', 'local']),
    /** The commit that was checked out for the gates (a train, or prove's in-memory merge); its tree is `tree` unless trusted paths were restored. */
    commit: objectIdSchema,
    seconds: z.number().nonnegative(),
    at: z.string(),
    logPath: z.string().nullable(),
    /** The gate selection of the proving train; null for `land prove`. */
    selection: selectionTelemetrySchema.nullable(),
    /** The tip that was proven (a local proof's HEAD, a lone train member's tip). */
    tip: objectIdSchema.nullable().optional(),
  })
  .loose();
export type Proof = z.infer<typeof proofSchema>;

/** What the store reads from proofs/<tree>.json: a proof, 'corrupt' (not a proof of that tree), or null (none). */
export type ProofRead = Proof | 'corrupt' | null;

/** The proof a file holds, or 'corrupt' when it is not a proof of `tree`. */
export function parseProof(raw: unknown, tree: string): Proof | 'corrupt' {
  const parsed = proofSchema.safeParse(raw);
  return parsed.success && parsed.data.tree === tree ? parsed.data : 'corrupt';
}

/** proofs/tip-<tip>.json ({ tip, tree }): the tree of the latest proof made for a tip; only the tree is read. */
export const proofOfTipSchema = z.looseObject({ tree: objectIdSchema });
