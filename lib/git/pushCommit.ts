import { runGit } from './run.js';

export type CommitPush = { kind: 'pushed' } | { kind: 'failed'; message: string };

/**
 * Points `ref` of the repository at `url` at `commit`, whatever it held (an executor's cache
 * repository: git sends only the objects it does not have). No hooks run (`--no-verify`): this is
 * not a push of the project's history. A failure (unreachable, refused) is a value with git's and ssh's stderr on one line.
 */
export async function pushCommit(cwd: string, url: string, commit: string, ref: string, env?: Record<string, string>): Promise<CommitPush> {
  const result = await runGit(cwd, ['push', '--quiet', '--no-verify', '--end-of-options', url, `+${commit}:${ref}`], { okCodes: [1, 128], env });
  if (result.code === 0) return { kind: 'pushed' };
  // ssh's own line (`ssh: connect to host ... refused`) comes before git's `fatal:`: keep both, on one line.
  const said = result.stderr
    .trim()
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('; ');
  return { kind: 'failed', message: said.slice(0, 400) || `git push exited ${result.code}` };
}
