// The moment of truth: one compare-and-swap of the target ref against the base the train was
// built on. A worktree that has the target checked out follows the landing when it is clean and
// refuses it (target_dirty) when it is not, so nobody's uncommitted work is overwritten.
import { failpoint } from '../../failpoint.js';
import { branchRef, branchTip, isWorktreeClean, syncWorktreeTo, updateRefCas, worktreeOfBranch } from '../../git/index.js';

export type LandOutcome = { kind: 'landed'; warning: string | null } | { kind: 'lost'; actual: string | null } | { kind: 'target_dirty'; worktree: string };

export async function landTrain(opts: { cwd: string; target: string; base: string; train: string; token: string; message: string }): Promise<LandOutcome> {
  // Re-read the target first: a target that moved is a lost CAS whatever state a checkout is in.
  const now = await branchTip(opts.cwd, opts.target);
  if (now !== opts.base) return { kind: 'lost', actual: now };
  const worktree = await worktreeOfBranch(opts.cwd, opts.target);
  if (worktree && !(await isWorktreeClean(worktree.path))) return { kind: 'target_dirty', worktree: worktree.path };
  const cas = await updateRefCas(opts.cwd, branchRef(opts.target), opts.train, opts.base, {
    env: { LAND_TOKEN: opts.token },
    message: opts.message,
  });
  if (cas.kind === 'lost') return { kind: 'lost', actual: cas.actual };
  failpoint('after-cas');
  if (!worktree) return { kind: 'landed', warning: null };
  try {
    await syncWorktreeTo(worktree.path, opts.base, opts.train);
    return { kind: 'landed', warning: null };
  } catch (error) {
    return { kind: 'landed', warning: `landed, but the checkout at ${worktree.path} could not follow: ${(error as Error).message}` };
  }
}
