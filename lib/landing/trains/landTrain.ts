// The moment of truth: one compare-and-swap of the target ref against the base the train was
// built on. A worktree that has the target checked out follows the landing when it is clean and
// refuses it (target_dirty) when it is not, so nobody's uncommitted work is overwritten.
import { LandError } from '../../errors.js';
import { failpoint } from '../../failpoint.js';
import { branchRef, GitError, refTip, isWorktreeClean, syncWorktreeTo, updateRefCas, worktreeOfBranch } from '../../git/index.js';

export type LandOutcome =
  | { kind: 'landed'; warning: string | null }
  | { kind: 'lost'; actual: string | null }
  | { kind: 'target_dirty'; worktree: string }
  /** Not tried: land's hook protecting the target would not run (lib/hooks/guard.ts); `message` says why. */
  | { kind: 'hook_off'; message: string };

/** Arms and disarms the protecting hook (FileStore's token methods). */
export interface TokenIssuer {
  writeToken(): string;
  clearToken(token?: string): void;
}

/**
 * Runs `move` with a landing token made for it alone: only the token's hash is on disk while it
 * runs, the token itself is in no file and in no environment but the one `move` gives its git
 * process, and it is void as soon as `move` returns (or this process dies).
 */
export async function withLandingToken<T>(issuer: TokenIssuer, move: (env: Record<string, string>) => Promise<T>): Promise<T> {
  const token = issuer.writeToken();
  try {
    return await move({ LAND_TOKEN: token });
  } finally {
    issuer.clearToken(token);
  }
}

/** Where the target is now: at `base`, or moved (by anyone) since the train was built on it. */
export async function targetStillAt(cwd: string, ref: string, base: string): Promise<LandOutcome | null> {
  const now = await refTip(cwd, ref);
  return now === base ? null : { kind: 'lost', actual: now };
}

/** A CAS the target's hook refused (the ref did not move): a land hook of an older scheme, most likely. */
function refusedByHook(error: unknown, target: string): unknown {
  if (!(error instanceof GitError) || !/is protected|landing token/.test(error.stderr)) return error;
  return new LandError('state', `the hook protecting ${target} refused this drainer's landing: ${error.message}`, {
    hint: 'a hook written by an earlier version of land does not know the current landing token: run `land hooks install` again',
  });
}

export async function landTrain(opts: {
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
    return (await targetStillAt(opts.cwd, branchRef(opts.target), opts.base)) ?? { kind: 'target_dirty', worktree: worktree.path };
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
