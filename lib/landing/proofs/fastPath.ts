// The fast path: a head job whose merge onto the current target gives a tree that already has a
// PASS (in the verdict cache, or as an accepted proof) lands alone, with no gate run, and never
// rides a batch. This is the one function that decides it, once per train: the window choice makes
// the decision and hands it to the judge (which makes it itself only for a train the window choice
// did not decide, such as a bisection half), so they cannot disagree. Cache and proofs are looked
// up by the gated tree (the merge with the policy's trusted paths restored from the target,
// lib/landing/gates/trusted.ts): a PASS counts only for the content it tested.
import { existsSync } from 'node:fs';
import { gatesHash, type Policy } from '../../config/index.js';
import { changedPaths, mergeTree } from '../../git/index.js';
import type { FastPathRefusal, QueueStore, JobRecord } from '../../store/index.js';
import { gatedTreeOf } from '../gates/trusted.js';
import { anyPathMatches } from '../plan/glob.js';
import { proofRefusal, readProofFor } from './proof.js';

/** Why a head job does not land alone (declared with the job record's `fastPath`, lib/store/formats/gateRecords.ts). */
export type { FastPathRefusal };

/**
 * `tree`: the merge of the tip onto the target (what would land). `restored`: the trusted paths the
 * merge changes, restored from the target for the gates (so cache and proofs were looked up by
 * another tree, the gated one); absent when none.
 */
export type FastPathDecision =
  | { alone: true; source: 'proof' | 'cache'; tree: string; proofSource?: 'train' | 'local'; restored?: string[] }
  | { alone: false; refusal: FastPathRefusal; tree: string | null; restored?: string[] };

export async function fastPathDecision(opts: {
  cwd: string;
  store: QueueStore;
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
  const gated = await gatedTreeOf(cwd, policy, opts.base, tree);
  const restored = gated.restored.length ? { restored: gated.restored } : {};
  const hash = gatesHash(policy.gates);

  const cached = store.getVerdict(gated.tree, hash);
  if (cached?.verdict === 'PASS') return { alone: true, source: 'cache', tree, ...restored };
  if (cached?.verdict === 'FAIL') return { alone: false, refusal: 'cached_fail', tree, ...restored };
  if (!policy.proof.enabled) return { alone: false, refusal: 'proofs_disabled', tree, ...restored };

  const proof = readProofFor(store, gated.tree, opts.job.tip);
  const logExists = typeof proof === 'object' && proof !== null && proof.logPath !== null && existsSync(proof.logPath);
  const refusal = proofRefusal(proof, { gatesHash: hash, planBaseTree: baseTree, trustLocal: policy.proof.trustLocal, logExists });
  if (refusal !== null || typeof proof !== 'object' || proof === null) return { alone: false, refusal: refusal ?? 'no_pass', tree, ...restored };
  // A proof of the tip's own tree where the gates now run on the gated one (made before its
  // trusted paths were restored): it did not test this content. Else: a proof on another target.
  if (proof.tree !== gated.tree) return { alone: false, refusal: proof.tree === tree ? 'trusted_restored' : 'target_moved', tree, ...restored };

  // A train's proof was made after its refresh entries ran; `land prove` does not run them, so a
  // local proof of a change that triggers a refresh does not prove the tree that would land.
  if (proof.source === 'local' && policy.refresh.length) {
    const changed = await changedPaths(cwd, baseTree, tree);
    if (policy.refresh.some((entry) => anyPathMatches(changed, entry.paths))) return { alone: false, refusal: 'refresh_pending', tree, ...restored };
  }
  return { alone: true, source: 'proof', tree, proofSource: proof.source, ...restored };
}
