// The check just before a landing: the target must still be where the train was built. (The
// landing itself is the store's: QueueStore.land, a compare-and-swap or a push.)
import { refTip } from '../../git/index.js';
import type { LandOutcome } from '../../store/index.js';

/** Where the target is now: at `base`, or moved (by anyone) since the train was built on it. */
export async function targetStillAt(cwd: string, ref: string, base: string): Promise<LandOutcome | null> {
  const now = await refTip(cwd, ref);
  return now === base ? null : { kind: 'lost', actual: now };
}
