// The moment of truth of a clone's own queue: one compare-and-swap of the target ref against the
// base the train was built on. A worktree that has the target checked out follows the landing
// when it is clean and refuses it (target_dirty) when it is not, so nobody's uncommitted work is
// overwritten.
import { LandError } from '../../errors.js';
import { failpoint } from '../../failpoint.js';
import { branchRef, GitError, isWorktreeClean, refTip, syncWorktreeTo, updateRefCas, worktreeOfBranch } from '../../git/index.js';
import { withLandingToken, type LandOutcome, type TokenIssuer } from '../landing.js';

/** A CAS the target's hook refused (the ref did not move): a land hook of an older scheme, most likely. */
function refusedByHook(error: unknown, target: string): unknown {
  if (!(error instanceof GitError) || !/is protected|landing token/.test(error.stderr)) return error;
  return new LandError('state', `the hook protecting ${target} refused this drainer's landing: ${error.message}`, {
    hint: 'a hook written by an earlier version of land does not know the current landing token: run `land hooks install` again',
  });
}

export async function landByCas(opts: {
  cwd: string;
  target: string;
  base: string;
  train: string;
  tokens: TokenIssuer;
  message: string;
}): Promise<LandOutcome> {
  // The caller has just checked that the target is at `base` (before recording the landing); the
  // CAS checks it again. A dirty checkout is refused only if the target did not move meanwhile: a
  // target that moved is a lost CAS whatever state a checkout is in.
  const worktree = await worktreeOfBranch(opts.cwd, opts.target);
  if (worktree && !(await isWorktreeClean(worktree.path))) {
    const now = await refTip(opts.cwd, branchRef(opts.target));
    return now === opts.base ? { kind: 'target_dirty', worktree: worktree.path } : { kind: 'lost', actual: now };
  }
  const cas = await withLandingToken(opts.tokens, (env) =>
    updateRefCas(opts.cwd, branchRef(opts.target), opts.train, opts.base, { env, message: opts.message }).catch((error: unknown) => {
      throw refusedByHook(error, opts.target);
    }),
  );
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
