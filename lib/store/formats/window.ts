// window.json: the window's size now and its last changes (lib/landing/window.ts keeps 50).
import { z } from 'zod';

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
