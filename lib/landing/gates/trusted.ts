// Trusted paths (policy `trusted`, docs/policy.md#trusted): the gate machinery (scripts, CI
// folders) always comes from the target. Before the gates run, every path under a trusted glob
// that the train changed, added or deleted is restored to the target tip's version, so what the
// gates check is the "gated tree": the train's tree with the target's trusted files. The landed
// commit is still the train's; a change to a trusted path takes effect once it has landed.
// The verdict cache and proofs are keyed by the gated tree (the content that was tested).
import type { Policy } from '../../config/index.js';
import type { PinnedWorktree } from '../../git/index.js';
import { changedPaths, checkoutTreeInWorktree, restoredTree } from '../../git/index.js';
import type { TrustedTelemetry } from '../../store/index.js';
import { anyPathMatches, matchingPaths } from '../plan/glob.js';

export type { TrustedTelemetry };

/** What restoring the trusted paths makes of one train (or merge). */
export interface Gated {
  /** The tree the gates run on: `tree` itself when the train changes no trusted path. */
  tree: string;
  /** Trusted paths the train changes (restored to the target's version for the gates); sorted. */
  restored: string[];
}

/** A predicate for "this path is under one of the policy's trusted globs". */
export function isTrusted(policy: Pick<Policy, 'trusted'>): (path: string) => boolean {
  const globs = policy.trusted;
  return (path) => anyPathMatches([path], globs);
}

/**
 * The tree the gates see for `tree` built on `base` (a commit or tree of the target): `tree` with
 * its trusted paths restored from `base`. No git call beyond a diff when nothing is trusted or
 * changed.
 */
export async function gatedTreeOf(cwd: string, policy: Pick<Policy, 'trusted'>, base: string, tree: string): Promise<Gated> {
  if (!policy.trusted.length) return { tree, restored: [] };
  const restored = await restoredTree(cwd, tree, base, isTrusted(policy));
  return { tree: restored.tree, restored: restored.paths };
}

/**
 * Restores the trusted paths in the checkout `dir` (HEAD: the train, clean) so that its files are
 * the gated tree. Throws when the checkout does not end up as that tree.
 */
export async function restoreTrustedInWorktree(dir: string, gated: Gated, pinned?: PinnedWorktree): Promise<void> {
  if (!gated.restored.length) return;
  const now = await checkoutTreeInWorktree(dir, gated.tree, pinned);
  if (now !== gated.tree) throw new Error(`restoring the trusted paths left tree ${now} in ${dir}, not ${gated.tree}`);
}

/**
 * For the record: which trusted paths each member's own merge changes in the train (`steps`: the
 * chain, from the base through each member's commit). Members that change none are left out.
 */
export async function trustedByMember(
  cwd: string,
  policy: Pick<Policy, 'trusted'>,
  base: string,
  steps: readonly { job: string; commit: string }[],
): Promise<Record<string, string[]>> {
  const byJob: Record<string, string[]> = {};
  if (!policy.trusted.length) return byJob;
  let previous = base;
  for (const step of steps) {
    const paths = matchingPaths(await changedPaths(cwd, previous, step.commit), policy.trusted).sort();
    if (paths.length) byJob[step.job] = paths;
    previous = step.commit;
  }
  return byJob;
}

/** The telemetry a train records about its trusted paths, or null when it changed none. */
export function trustedTelemetry(gated: Gated, byJob: Record<string, string[]>): TrustedTelemetry | null {
  if (!gated.restored.length) return null;
  return { gatedTree: gated.tree, restored: gated.restored, byJob };
}

const LISTED = 3;

/** "gate.sh, ci/run.sh (+2 more)". */
export function listTrusted(paths: readonly string[]): string {
  const head = paths.slice(0, LISTED).join(', ');
  return paths.length > LISTED ? `${head} (+${paths.length - LISTED} more)` : head;
}

/** The sentence `land show` and `land why` print for a job (or train) that changes trusted paths. */
export function trustedSentence(paths: readonly string[], whose: 'job' | 'train' = 'job'): string {
  const what = whose === 'job' ? 'changes' : 'the train changes';
  return `${what} trusted ${listTrusted(paths)}: gated with the target's version; takes effect once landed`;
}
