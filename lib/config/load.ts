// The policy in force is the .ctm.json committed at the target branch's tip, never the working
// tree and never a member branch: a queued branch cannot change which commands gate it.
import { LandError } from '../errors.js';
import { branchRef, configGet, isValidBranchName, readCommitFile, type CommitFile } from '../git/index.js';
import { POLICY_FILE, type Policy } from './schema.js';
import { policyOrThrow } from './validate.js';

export const DEFAULT_TARGET = 'main';

/** The target branch: `--target`, else `LAND_TARGET`, else git config `land.target`, else `main`. */
export function resolveTargetName(cwd: string, explicit?: string): Promise<string> {
  // Asked once per train by a drainer, and perhaps early by a command that starts (in parallel
  // with its other first git call): the answer cannot change while this process runs. A refusal
  // is not kept: asked again, it is given again.
  const key = `${cwd}\0${explicit ?? ''}`;
  const known = TARGETS.get(key);
  if (known) return known;
  const asked = targetName(cwd, explicit);
  TARGETS.set(key, asked);
  asked.catch(() => TARGETS.get(key) === asked && TARGETS.delete(key));
  return asked;
}

async function targetName(cwd: string, explicit?: string): Promise<string> {
  const name = explicit ?? process.env.LAND_TARGET ?? (await configGet(cwd, 'land.target')) ?? DEFAULT_TARGET;
  if (!(await isValidBranchName(cwd, name))) throw new LandError('usage', `invalid target branch name ${JSON.stringify(name)}`);
  return name;
}

const TARGETS = new Map<string, Promise<string>>();

/**
 * A read of the policy made moments ago by this process (the queue's mode is read from the same
 * file, lib/config/queueMode.ts): the next loadPolicy of that ref takes it instead of starting git
 * again, once; later calls (a drainer's next train) read afresh.
 */
const PRIMED = new Map<string, CommitFile | null>();

export function primePolicyRead(cwd: string, ref: string, read: CommitFile | null): void {
  PRIMED.set(`${cwd}\0${ref}`, read);
}

function takePrimed(cwd: string, ref: string): CommitFile | null | undefined {
  const key = `${cwd}\0${ref}`;
  const read = PRIMED.get(key);
  PRIMED.delete(key);
  return read;
}

export interface LoadedPolicy {
  policy: Policy;
  target: string;
  /** The target tip the policy was read from. */
  tip: string;
  /** The tree of that tip. */
  tree: string;
}

/**
 * The policy at the target's tip. `refOf` names the ref the target is read from: the branch
 * itself, or for a queue kept in a remote its remote-tracking ref (the store's `targetRef`).
 */
export async function loadPolicy(cwd: string, explicitTarget?: string, refOf: (target: string) => string = branchRef): Promise<LoadedPolicy> {
  const target = await resolveTargetName(cwd, explicitTarget);
  // One git process reads the tip, its tree and the policy file at that tip (a drain asks per train).
  const ref = refOf(target);
  const primed = takePrimed(cwd, ref);
  const read = primed !== undefined ? primed : await readCommitFile(cwd, ref, POLICY_FILE);
  if (read === null) {
    throw new LandError('config', `target branch "${target}" does not exist`, {
      hint: 'create it, or name another with `git config land.target <branch>`',
    });
  }
  const { commit: tip, tree } = read;
  const text = read.file?.text ?? null;
  if (text === null) {
    throw new LandError('config', `no ${POLICY_FILE} on ${target} (${tip.slice(0, 12)})`, {
      hint: `run \`land init\`, then commit ${POLICY_FILE} on ${target}`,
    });
  }
  const policy = policyOrThrow(text, `${target} (${tip.slice(0, 12)})`);
  if (policy.target !== target) {
    throw new LandError('config', `${POLICY_FILE} on ${target} names target "${policy.target}"`, {
      details: [`target: expected "${target}", the branch the policy was read from`],
    });
  }
  return { policy, target, tip, tree };
}
