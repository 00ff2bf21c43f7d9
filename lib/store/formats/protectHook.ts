import { z } from 'zod';

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
