import { z } from 'zod';
import { objectIdSchema } from './gateRecords.js';

// gate-passes/<commit>.json: which gates (by name, with the hash of that one gate's definition)
// passed on a commit, so a path-scoped gate can count an ancestor's PASS (selective gates).
export const gatePassesSchema = z.object({
  commit: objectIdSchema,
  gates: z.record(z.string(), z.string()),
});
