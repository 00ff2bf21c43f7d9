// A red target's episode, decided as one pure function. When a drain stops because the target
// itself fails its gates (plan/settlement.ts sendBackUnjudged), the FAILs of that episode may be
// the environment's, not the code's: gates that ran before their dependencies were installed fail
// on the target and on every job alike. So none of them is trusted later: the target's own FAIL
// and the lone job's (whenever they were written: they decided this stop), and every FAIL this
// drain wrote since its gates last passed, are voided. A gate run that passed shows the
// environment worked then: the FAILs written before it stay (a `land run --watch` that ran for
// days keeps its genuine FAILs; one red target voids only the episode that ended red). The next
// `land run` gates the target and the job again; a FAIL that was real fails again, one gate run
// each. PASSes stay: a missing dependency does not make a gate pass.
import type { VerdictRecord } from '../../store/index.js';

export interface RedEpisode {
  /** When this drain started (ISO): the episode starts then, or at the last PASS the drain wrote since. */
  startedAt: string;
  now: string;
  /** The train whose target check stopped the drain (named by the voided entries). */
  train: string;
  /** The gates the stop was decided under. */
  gatesHash: string;
  /** Trees whose FAIL decided the stop, cached before this drain or not: the target's and the job's. */
  trees: readonly string[];
}

/**
 * When the episode began: the drain's start, or the last PASS the drain wrote since (gates that
 * ran and passed: the environment worked then; a PASS read from the cache is not written again).
 */
export function episodeStart(startedAt: string, verdicts: readonly VerdictRecord[]): string {
  let since = startedAt;
  for (const record of verdicts) if (record.verdict === 'PASS' && record.at > since) since = record.at;
  return since;
}

/** The entries to write back voided (with `voided` set); the others are left as they are. */
export function verdictsToVoid(episode: RedEpisode, verdicts: readonly VerdictRecord[]): VerdictRecord[] {
  const trees = new Set(episode.trees);
  const since = episodeStart(episode.startedAt, verdicts);
  const decided = (record: VerdictRecord) => record.gatesHash === episode.gatesHash && trees.has(record.tree);
  return verdicts
    .filter((record) => record.verdict === 'FAIL' && !record.voided && (record.at >= since || decided(record)))
    .map((record) => ({ ...record, voided: { at: episode.now, why: 'target_red', train: episode.train } }));
}
