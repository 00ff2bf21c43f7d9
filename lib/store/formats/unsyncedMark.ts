// unsynced.json: written (fsynced) by a drain before it writes job records and window.json without
// fsync, removed once it has fsynced them at its end. While it exists, a record of a job the journal
// names from byte `journalFrom` on may be behind the journal after a power cut; the next drain start
// checks those (lib/queue/unsyncedWrites.ts).
import { z } from 'zod';

export const unsyncedMarkSchema = z.object({
  /** The boot of the machine the writes happened in (lib/store/bootId.ts). */
  bootId: z.string().min(1),
  /** The journal's size when the first write without fsync could happen. */
  journalFrom: z.number().int().nonnegative(),
  pid: z.number().int(),
  since: z.string(),
});
export type UnsyncedMark = z.infer<typeof unsyncedMarkSchema>;
