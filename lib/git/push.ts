import { runGit, git } from './run.js';

/** The commit a remote branch points at, or null when the remote has no such branch. */
export async function remoteBranchTip(cwd: string, remote: string, branch: string): Promise<string | null> {
  const out = await git(cwd, ['ls-remote', '--end-of-options', remote, `refs/heads/${branch}`]);
  const first = out.split('\n').find((line) => line.endsWith(`\trefs/heads/${branch}`));
  return first ? (first.split('\t')[0] ?? null) : null;
}

export type PushResult = { kind: 'pushed' } | { kind: 'rejected'; message: string };

/**
 * Pushes `commit` to `remote`'s `branch` only if the remote still holds `expected` (a lease; null
 * means the branch must not exist). The caller checks that `expected` is an ancestor of `commit`,
 * so a successful push is always a fast-forward: never a force over someone else's work.
 */
export async function pushWithLease(
  cwd: string,
  remote: string,
  branch: string,
  commit: string,
  expected: string | null,
  env?: Record<string, string>,
): Promise<PushResult> {
  const ref = `refs/heads/${branch}`;
  const result = await runGit(cwd, ['push', '--porcelain', `--force-with-lease=${ref}:${expected ?? ''}`, '--end-of-options', remote, `${commit}:${ref}`], {
    okCodes: [1],
    env,
  });
  if (result.code === 0) return { kind: 'pushed' };
  const line = (result.stdout + result.stderr).split('\n').find((l) => l.startsWith('!')) ?? result.stderr.trim().split('\n')[0] ?? 'rejected';
  return { kind: 'rejected', message: line.trim() };
}
