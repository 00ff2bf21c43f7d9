// The policy in force is the .ctm.json committed at the target branch's tip, never the working
// tree and never a member branch: a queued branch cannot change which commands gate it.
import { LandError } from '../errors.js';
import { branchRef, configGet, isValidBranchName, readCommitFile, remoteDefaultBranch, type CommitFile } from '../git/index.js';
import { POLICY_FILE, type Policy } from './schema.js';
import { policyOrThrow } from './validate.js';

export const DEFAULT_TARGET = 'main';

/**
 * The target branch: `--target`, else `LAND_TARGET`, else git config `land.target`, else `main`.
 * Asked once per command (lib/cli/openQueue.ts), which hands the name down.
 */
export async function resolveTargetName(cwd: string, explicit?: string): Promise<string> {
  return (await namedTarget(cwd, explicit)) ?? DEFAULT_TARGET;
}

/**
 * The target the user named (`--target`, `LAND_TARGET`, git config `land.target`), checked; null
 * when none is named (resolveTargetName then takes `main`, `land init` chooses: lib/config/initTarget.ts).
 */
export async function namedTarget(cwd: string, explicit?: string): Promise<string | null> {
  const name = explicit ?? process.env.LAND_TARGET ?? (await configGet(cwd, 'land.target'));
  if (name === null) return null;
  if (!(await isValidBranchName(cwd, name))) throw new LandError('usage', `invalid target branch name ${JSON.stringify(name)}`);
  return name;
}

export interface LoadedPolicy {
  policy: Policy;
  target: string;
  /** The target tip the policy was read from. */
  tip: string;
  /** The tree of that tip. */
  tree: string;
  /** The policy file's blob: a read of a later tip whose file is the same blob reuses `policy` unparsed. */
  policyOid?: string;
}

/**
 * The policy at the tip of `target`, read at `ref`: the branch itself, or for a queue kept in a
 * remote its remote-tracking ref (the store's `targetRef`). One git process reads the tip, its
 * tree and the policy file at that tip.
 */
export async function loadPolicy(cwd: string, target: string, ref: string = branchRef(target), known: LoadedPolicy | null = null): Promise<LoadedPolicy> {
  const read = await readCommitFile(cwd, ref, POLICY_FILE);
  if (read === null) throw await missingTargetError(cwd, target);
  return policyOfRead(target, read, known);
}

/**
 * What to do about a target branch that does not exist. A fresh clone of a repository whose branch
 * is `master` has no land.target (init set it in the maintainer's clone only) and falls back to
 * `main`: the hint names origin's default branch and the one setting that fixes this clone.
 */
export function missingTargetHint(target: string, originDefault: string | null): string {
  if (originDefault === null || originDefault === target) return 'create it, or name another with `git config land.target <branch>`';
  return `origin's default branch is ${originDefault}: \`git config land.target ${originDefault}\` in this clone (or LAND_TARGET=${originDefault}, --target ${originDefault})`;
}

/** The refusal of a target branch that does not exist, with missingTargetHint's hint. */
export async function missingTargetError(cwd: string, target: string): Promise<LandError> {
  const originDefault = await remoteDefaultBranch(cwd, 'origin').catch(() => null);
  return new LandError('config', `target branch "${target}" does not exist`, { hint: missingTargetHint(target, originDefault) });
}

/**
 * The policy of `target` from a read of its tip already made (null: no such branch). `known`: the
 * policy read before (a drain reads it again for each train); when the file is the same blob its
 * policy is taken as it is, without parsing the same text again.
 */
export function policyOfRead(target: string, read: CommitFile | null, known: LoadedPolicy | null = null): LoadedPolicy {
  if (read === null) {
    throw new LandError('config', `target branch "${target}" does not exist`, {
      hint: 'create it, or name another with `git config land.target <branch>`',
    });
  }
  const { commit: tip, tree } = read;
  if (known && known.target === target && read.file && known.policyOid === read.file.oid) return { ...known, tip, tree };
  const text = read.file?.text ?? null;
  if (text === null) {
    throw new LandError('config', `no ${POLICY_FILE} on ${target} (${tip.slice(0, 12)})`, {
      hint: `\`land init\` writes one; commit it on ${target}: the policy is read from ${target}'s tip, not from the worktree`,
    });
  }
  const policy = policyOrThrow(text, `${target} (${tip.slice(0, 12)})`);
  if (policy.target !== target) {
    throw new LandError('config', `${POLICY_FILE} on ${target} names target "${policy.target}"`, {
      details: [`target: expected "${target}", the branch the policy was read from`],
    });
  }
  return { policy, target, tip, tree, ...(read.file ? { policyOid: read.file.oid } : {}) };
}
