// executors.json, a drainer's own file: which of its executors (lib/landing/executors/health.ts)
// were down when its drain last changed their health, so `land status` can say so (docs/executors.md).
import { z } from 'zod';

export const executorDownSchema = z.object({
  name: z.string(),
  /** When it was first found down in this run of failures (ms since the epoch). */
  since: z.number(),
  reason: z.string(),
  failures: z.number().int().positive(),
  /** Not offered a train before this time (ms since the epoch). */
  until: z.number(),
});

export const executorHealthFileSchema = z.object({
  version: z.literal(1),
  /** When the drain wrote it (ISO time). */
  at: z.string(),
  down: z.array(executorDownSchema),
});
export type ExecutorHealthFile = z.infer<typeof executorHealthFileSchema>;
