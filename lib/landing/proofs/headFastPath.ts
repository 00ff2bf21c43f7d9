// The window choice's half of the fast path (fastPath.ts decides; this records): a head job whose
// tip is already proven (or whose tree has a cached PASS) on the current target rides alone. The
// decision is kept on the job (`fastPath`) so `land show` can say why it was gated, and handed to
// the judge, so it is made once per train.
import type { LoadedPolicy } from '../../config/index.js';
import { applyChangesLocked, fastPathCheckedChange, nowIso } from '../../queue/index.js';
import type { FastPathRecord, QueueStore, JobRecord } from '../../store/index.js';
import type { FastPathCheck } from '../gates/judge.js';
import { fastPathDecision } from './fastPath.js';

const refusalOf = (decision: FastPathRecord): string | null => (decision.alone ? null : decision.refusal);

/** Null: the head rides with the rest of its admitted batch (the rest of a batch never checks). */
export async function headFastPath(store: QueueStore, cwd: string, loaded: LoadedPolicy, baseTree: string, head: JobRecord): Promise<FastPathCheck | null> {
  if (head.requeued && head.batch) return null; // the rest of an admitted batch rides together
  const base = loaded.tip;
  const decision = await fastPathDecision({ cwd, store, policy: loaded.policy, base, baseTree, job: head });
  const summary: FastPathRecord = decision.alone
    ? { alone: true, source: decision.source, proofSource: decision.proofSource ?? null, tree: decision.tree, base, checkedAt: nowIso() }
    : { alone: false, refusal: decision.refusal, tree: decision.tree, base, checkedAt: nowIso() };
  if (decision.restored) summary.restored = decision.restored; // trusted paths it changes (land show)
  const previous = head.fastPath;
  if (!previous || previous.alone !== summary.alone || refusalOf(previous) !== refusalOf(summary) || previous.base !== base) {
    // Bookkeeping of this drainer: a queue kept in a remote does not push it on its own.
    await store.withUnsharedQueueLock(() => applyChangesLocked(store, [fastPathCheckedChange(head, summary)]));
  }
  return { job: head.id, base, decision };
}
