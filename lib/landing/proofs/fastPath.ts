// The fast path: a head job whose merge onto the current target gives a tree that already has a
// PASS (in the verdict cache, or as an accepted proof) lands alone, with no gate run, and never
// rides a batch. This is the one function that decides it, once per train: the window choice makes
// the decision and hands it to the judge (which makes it itself only for a train the window choice
// did not decide, such as a bisection half), so they cannot disagree.
import { existsSync } from 'node:fs';
import { gatesHash, type Policy } from '../../config/index.js';
import { changedPaths, mergeTree } from '../../git/index.js';
import type { FastPathRefusal, FileStore, JobRecord } from '../../store/index.js';
import { anyPathMatches } from '../plan/glob.js';
import { proofRefusal, readProofFor } from './proof.js';

/** Why a head job does not land alone (declared with the job record's `fastPath`, lib/store/recordParts.ts). */
export type { FastPathRefusal };

export type FastPathDecision =
  | { alone: true; source: 'proof' | 'cache'; tree: string; proofSource?: 'train' | 'local' }
  | { alone: false; refusal: FastPathRefusal; tree: string | null };

export async function fastPathDecision(opts: {
  cwd: string;
  store: FileStore;
  policy: Policy;
  base: string;
  baseTree: string;
  job: JobRecord;
}): Promise<FastPathDecision> {
  const { cwd, store, policy, baseTree } = opts;
  // A tip that contains the target merges to its own tree, which is the tree a fast-forward lands.
  const merged = await mergeTree(cwd, opts.base, opts.job.tip);
  if (merged.kind === 'conflict') return { alone: false, refusal: 'conflict', tree: null };
  const tree = merged.tree;
  const hash = gatesHash(policy.gates);

  const cached = store.getVerdict(tree, hash);
  if (cached?.verdict === 'PASS') return { alone: true, source: 'cache', tree };
  if (cached?.verdict === 'FAIL') return { alone: false, refusal: 'cached_fail', tree };
  if (!policy.proof.enabled) return { alone: false, refusal: 'proofs_disabled', tree };

  const proof = readProofFor(store, tree, opts.job.tip);
  const logExists = typeof proof === 'object' && proof !== null && proof.logPath !== null && existsSync(proof.logPath);
  const refusal = proofRefusal(proof, { gatesHash: hash, planBaseTree: baseTree, trustLocal: policy.proof.trustLocal, logExists });
  if (refusal !== null || typeof proof !== 'object' || proof === null) return { alone: false, refusal: refusal ?? 'no_pass', tree };
  if (proof.tree !== tree) return { alone: false, refusal: 'target_moved', tree }; // a proof of this tip on another target

  // A train's proof was made after its refresh entries ran; `land prove` does not run them, so a
  // local proof of a change that triggers a refresh does not prove the tree that would land.
  if (proof.source === 'local' && policy.refresh.length) {
    const changed = await changedPaths(cwd, baseTree, tree);
    if (policy.refresh.some((entry) => anyPathMatches(changed, entry.paths))) return { alone: false, refusal: 'refresh_pending', tree };
  }
  return { alone: true, source: 'proof', tree, proofSource: proof.source };
}
