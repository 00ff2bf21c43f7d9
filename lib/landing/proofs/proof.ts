// Proofs: a recorded PASS of the gates on a tree, tested on a given target tree. A proof lets a
// job whose merge onto the current target gives that very tree land alone without a gate (the
// fast path). Proofs are keyed by the merged tree (proofs/<tree>.json): a later proof of the same
// tree replaces the earlier one. Whether a proof is accepted is one pure function, proofRefusal.
import type { QueueStore, Proof, ProofRefusal } from '../../store/index.js';

export { proofSchema, type Proof } from '../../store/index.js';
export type { ProofRefusal };

/** What each refusal means, for `land show` and the docs. */
export const PROOF_REFUSALS: Record<ProofRefusal, string> = {
  no_pass: 'no PASS is recorded for this tree',
  corrupt: 'the proof file is corrupt',
  untrusted_source: 'the proof is local and the policy does not trust local proofs (proof.trustLocal: false)',
  gates_changed: 'the gates changed since the proof (another gatesHash)',
  target_moved: 'the target moved since the proof (it was tested on another target tree)',
  log_missing: 'the log of the proving run is missing',
};

export function recordProof(store: QueueStore, proof: Proof): void {
  store.writeProof(proof);
  if (proof.tip) store.writeProofTreeOfTip(proof.tip, proof.tree);
}

/**
 * The proof to judge a tip by: the proof of the tree it merges to now, else the latest proof of
 * the same tip on another target (so the refusal can say the target moved or the gates changed,
 * rather than that nothing was ever proven).
 */
export function readProofFor(store: QueueStore, tree: string, tip: string): Proof | 'corrupt' | null {
  const exact = readProof(store, tree);
  if (exact !== null) return exact;
  const other = store.readProofTreeOfTip(tip);
  return other === null || other === tree ? null : readProof(store, other);
}

/** The proof of `tree`; 'corrupt' when the file exists but is not a proof of that tree. */
export function readProof(store: QueueStore, tree: string): Proof | 'corrupt' | null {
  return store.readProof(tree);
}

/**
 * Why a proof does not let a tree skip its gates, or null when it does. Checked in this order:
 * nothing recorded, corrupt, untrusted source, gates changed, target moved, log missing.
 */
export function proofRefusal(
  proof: Proof | 'corrupt' | null,
  expect: { gatesHash: string; planBaseTree: string; trustLocal: boolean; logExists: boolean },
): ProofRefusal | null {
  if (proof === null) return 'no_pass';
  if (proof === 'corrupt') return 'corrupt';
  if (proof.source === 'local' && !expect.trustLocal) return 'untrusted_source';
  if (proof.gatesHash !== expect.gatesHash) return 'gates_changed';
  if (proof.planBaseTree !== expect.planBaseTree) return 'target_moved';
  if (!expect.logExists) return 'log_missing';
  return null;
}
