// The verdict cache: (tree, gatesHash) → PASS or FAIL. The same tree under the same gates is
// judged once. Only verdicts about the code are cached: an infrastructure failure, a policy
// refusal or a stopped run says nothing about the tree and is never stored. A FAIL a red target
// shared is voided when the drain stops (plan/redEpisode.ts): the store then treats it as a miss.
import { nowIso } from '../../queue/index.js';
import type { QueueStore, JobRecord, VerdictRecord } from '../../store/index.js';
import { verdictsToVoid, type RedEpisode } from '../plan/redEpisode.js';

export function cachedVerdict(store: QueueStore, tree: string, gatesHash: string, members: readonly JobRecord[]): VerdictRecord | null {
  const record = store.getVerdict(tree, gatesHash);
  if (!record) return null;
  // `land retry` asks for a fresh judgement: a cached FAIL does not bind a retried member.
  if (record.verdict === 'FAIL' && members.some((job) => job.regate === true)) return null;
  return record;
}

export function storeVerdict(
  store: QueueStore,
  entry: {
    tree: string;
    gatesHash: string;
    verdict: 'PASS' | 'FAIL';
    reason: string | null;
    status: string | null;
    failReason: 'gate' | 'timeout' | 'no_ledger_line' | null;
    seconds: number;
    train: string;
    log: string | null;
  },
): void {
  store.putVerdict({ ...entry, at: nowIso() });
}

/** Voids the FAILs of a red target's episode (plan/redEpisode.ts); returns how many. */
export function voidRedEpisode(store: QueueStore, episode: RedEpisode): number {
  const voided = verdictsToVoid(episode, store.listVerdicts());
  for (const record of voided) store.putVerdict(record);
  return voided.length;
}
