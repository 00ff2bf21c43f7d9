// `land prove`: HEAD merged onto the target tip in memory (no checkout of the user's tree), the
// policy's gates run on that merge in a detached worktree under trains/, and a PASS recorded as a
// `local` proof of the merged tree. Only the proof is written, never a verdict: trains trust
// local proofs only when the policy says so (proof.trustLocal). Trusted paths (policy `trusted`)
// are restored from the target in that worktree before the gates, as the drainer does, and the
// proof is of the tree the gates saw.
import { isolationOf, type SandboxHost } from '../gates/sandbox.js';
import { gatesHash, type LoadedPolicy } from '../../config/index.js';
import { LandError } from '../../errors.js';
import { changedPaths, commitTree, isAncestor, mergeTree, revParse, treeOf, withDetachedWorktree, type WorktreeRun } from '../../git/index.js';
import { nowIso } from '../../queue/index.js';
import type { QueueStore } from '../../store/index.js';
import { runGates, type GateFailure, type GateRun } from '../gates/gateRunner.js';
import { LogSink } from '../gates/logSink.js';
import { recordProof, type Proof } from './proof.js';
import { triggeredEntries } from '../gates/refresh.js';
import { gatedTreeOf, restoreTrustedInWorktree, trustedSentence, type Gated } from '../gates/trusted.js';

export interface ProveResult {
  verdict: GateRun['verdict'];
  failure: GateFailure | null;
  head: string;
  base: string;
  /** The commit the gates ran on: HEAD itself when it contains the target, else an in-memory merge. */
  commit: string;
  tree: string;
  /** The tree the gates ran on: `tree` with its trusted paths restored from the target (the proof's key). */
  gatedTree: string;
  /** The trusted paths HEAD changes, restored from the target for the gates. */
  restored: string[];
  planBaseTree: string;
  gatesHash: string;
  log: string;
  proof: Proof | null;
  seconds: number;
  /** Things the user should know (the proof may not allow the fast path). */
  notes: string[];
}

function proveMessage(head: string, target: string, base: string): string {
  return `land prove: ${head.slice(0, 12)} onto ${target} at ${base.slice(0, 12)}\n\nLand-Prove-Head: ${head}\nLand-Prove-Base: ${base}`;
}

export interface ProveOptions {
  cwd: string;
  store: QueueStore;
  loaded: LoadedPolicy;
  /** The gates' sandbox, resolved once by the command (gates/sandboxHost.ts). */
  sandbox: SandboxHost;
  signal?: AbortSignal;
  onGate?: (event: { phase: 'started' | 'finished'; gate: string; status?: string; seconds?: number }) => void;
}

/** HEAD merged onto the target's tip, as the drainer would build HEAD's job riding alone. */
async function mergeOntoTarget(cwd: string, loaded: LoadedPolicy): Promise<{ head: string; base: string; planBaseTree: string; tree: string; commit: string }> {
  const head = await revParse(cwd, 'HEAD^{commit}');
  if (head === null) throw new LandError('state', 'HEAD names no commit: nothing to prove');
  const base = loaded.tip;
  const planBaseTree = await treeOf(cwd, base);
  const merged = await mergeTree(cwd, base, head);
  if (merged.kind === 'conflict') {
    throw new LandError('state', `HEAD (${head.slice(0, 12)}) conflicts with ${loaded.target} at ${base.slice(0, 12)} in ${merged.paths.join(', ')}`, {
      hint: `rebase onto ${loaded.target} (or merge it) and prove again`,
    });
  }
  const tree = merged.tree;
  // A HEAD that contains the target is its own merge; otherwise the merge commit exists only as an object.
  const commit = (await isAncestor(cwd, base, head)) ? head : await commitTree(cwd, tree, [base, head], proveMessage(head, loaded.target, base));
  return { head, base, planBaseTree, tree, commit };
}

/** What the user should know about how the drainer will treat this proof. */
async function proofNotes(cwd: string, loaded: LoadedPolicy, planBaseTree: string, tree: string): Promise<string[]> {
  const notes: string[] = [];
  if (!loaded.policy.proof.enabled) notes.push('proof.enabled is false in the policy: the drainer does not use proofs');
  else if (!loaded.policy.proof.trustLocal) notes.push('proof.trustLocal is false in the policy: the drainer ignores local proofs');
  const refresh = triggeredEntries(loaded.policy.refresh, await changedPaths(cwd, planBaseTree, tree));
  if (refresh.length)
    notes.push(`refresh entries apply (${refresh.map((e) => e.message).join('; ')}): the drainer runs them, so this proof does not let the job skip its gates`);
  return notes;
}

/** Runs the policy's gates on `commit` in a fresh worktree, its output in a log of its own. */
async function gateCommit(opts: ProveOptions, merge: { head: string; base: string; commit: string; gated: Gated }): Promise<{ run: GateRun; logPath: string }> {
  const { store, loaded } = opts;
  const id = store.freshLogId(`prove-${merge.head.slice(0, 12)}`);
  const logPath = store.logPath(id);
  const log = new LogSink(logPath, { maxBytes: loaded.policy.logs.maxBytes });
  log.line(`== prove ${id}: ${merge.head} onto ${loaded.target} at ${merge.base} as ${merge.commit} (${nowIso()})`);
  const dir = store.trainDir(id);
  let gated: WorktreeRun<GateRun>;
  try {
    gated = await withDetachedWorktree(
      opts.cwd,
      dir,
      merge.commit,
      async () => {
        if (merge.gated.restored.length) log.line(`== trusted paths restored from the target for the gates: ${merge.gated.restored.join(' ')}`);
        await restoreTrustedInWorktree(dir, merge.gated);
        return runGates({
          gates: loaded.policy.gates,
          worktree: dir,
          ownsWorktree: true,
          log,
          signal: opts.signal,
          onGate: opts.onGate,
          isolation: isolationOf(opts.sandbox, loaded.policy.sandbox),
          train: { LAND_TIP: merge.commit, LAND_BASE: merge.base, LAND_JOB: id, LAND_MEMBERS: '', LAND_TRAIN: id },
        });
      },
      { onCleanup: (left) => store.removeTrainDir(left) },
    );
    if (!gated.made) log.line(`== could not create the gate worktree: ${gated.message}`);
  } finally {
    await log.close();
  }
  if (!gated.made) throw new LandError('state', `could not check the merge out in ${dir}: ${gated.message}`);
  return { run: gated.value, logPath };
}

export async function proveHead(opts: ProveOptions): Promise<ProveResult> {
  const { cwd, store, loaded } = opts;
  const merge = await mergeOntoTarget(cwd, loaded);
  const { head, base, planBaseTree, tree, commit } = merge;
  const hash = gatesHash(loaded.policy.gates);
  const notes = await proofNotes(cwd, loaded, planBaseTree, tree);
  const gated = await gatedTreeOf(cwd, loaded.policy, base, tree);
  if (gated.restored.length) notes.push(trustedSentence(gated.restored, 'job'));
  const { run, logPath } = await gateCommit(opts, { ...merge, gated });

  let proof: Proof | null = null;
  if (run.verdict === 'PASS') {
    proof = {
      version: 1,
      tree: gated.tree,
      planBaseTree,
      gatesHash: hash,
      verdict: 'PASS',
      source: 'local',
      commit,
      seconds: run.seconds,
      at: nowIso(),
      logPath,
      selection: null,
      tip: head,
    };
    recordProof(store, proof);
  }
  return {
    verdict: run.verdict,
    failure: run.failure,
    head,
    base,
    commit,
    tree,
    gatedTree: gated.tree,
    restored: gated.restored,
    planBaseTree,
    gatesHash: hash,
    log: logPath,
    proof,
    seconds: run.seconds,
    notes,
  };
}
