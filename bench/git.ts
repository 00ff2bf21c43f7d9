// Git for the benchmark's set-up and for its baseline loop: spawnSync with argument arrays, no
// shell. Repositories are built with plumbing (hash-object, mktree, commit-tree, update-ref), so
// building 32 branches touches no checkout.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class BenchError extends Error {}

/** The caller's environment minus git variables that would aim git at another repository. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY']) delete env[name];
  return env;
}

export function git(cwd: string, args: readonly string[], input?: string): string {
  const result = spawnSync('git', args, { cwd, env: childEnv(), encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new BenchError(`could not run git ${args.join(' ')}: ${result.error.message}`);
  if (result.status !== 0) throw new BenchError(`git ${args.join(' ')} exited ${result.status ?? result.signal}: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

export interface BranchSpec {
  name: string;
  file: string;
  content: string;
}

/**
 * A repository at `dir` (which must exist): per-repo identity, no signing, no auto gc, branch
 * main holding README.md and `.ctm.json`, then one branch per spec, each one commit on main adding
 * one file. HEAD is left detached so no checkout follows the target (the baseline loop has none).
 */
/**
 * The policy's sandbox entry for gates that count their runs in a file under `folder`: a gate's /tmp
 * is private to its sandbox, so the folder is shown read-write (without it every count reads zero).
 */
export function countersFolder(folder: string): { readWrite: string[] } {
  return { readWrite: [folder] };
}

export function buildRepo(dir: string, policy: Record<string, unknown>, branches: readonly BranchSpec[]): void {
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['config', 'user.name', 'Land Bench']);
  git(dir, ['config', 'user.email', 'bench@land.invalid']);
  git(dir, ['config', 'commit.gpgSign', 'false']);
  git(dir, ['config', 'gc.auto', '0']);
  writeFileSync(join(dir, 'README.md'), '# bench repo\n');
  writeFileSync(join(dir, '.ctm.json'), `${JSON.stringify(policy, null, 2)}\n`);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'bench: policy']);
  git(dir, ['checkout', '-q', '--detach']);
  const baseEntries = git(dir, ['ls-tree', 'main']);
  const refs: string[] = [];
  for (const branch of branches) {
    const blob = git(dir, ['hash-object', '-w', '--stdin'], branch.content);
    const tree = git(dir, ['mktree'], `${baseEntries}\n100644 blob ${blob}\t${branch.file}\n`);
    const commit = git(dir, ['commit-tree', tree, '-p', 'main', '-m', `add ${branch.file}`]);
    refs.push(`create refs/heads/${branch.name} ${commit}\n`);
  }
  if (refs.length) git(dir, ['update-ref', '--stdin'], refs.join(''));
}

/** Commits `.ctm.json` = policy on top of main with plumbing (no checkout); returns the commit. */
export function commitPolicy(dir: string, policy: Record<string, unknown>): string {
  const old = git(dir, ['rev-parse', 'refs/heads/main']);
  const blob = git(dir, ['hash-object', '-w', '--stdin'], `${JSON.stringify(policy, null, 2)}\n`);
  const entries = git(dir, ['ls-tree', 'main'])
    .split('\n')
    .filter((line) => !line.endsWith('\t.ctm.json'));
  const tree = git(dir, ['mktree'], `${[...entries, `100644 blob ${blob}\t.ctm.json`].join('\n')}\n`);
  const commit = git(dir, ['commit-tree', tree, '-p', old, '-m', 'bench: policy change']);
  git(dir, ['update-ref', 'refs/heads/main', commit, old]);
  return commit;
}

/** Adds `file` on top of `branch` (a new tip); returns the commit. */
export function addToBranch(dir: string, branch: string, file: string, content: string): string {
  const ref = `refs/heads/${branch}`;
  const old = git(dir, ['rev-parse', ref]);
  const blob = git(dir, ['hash-object', '-w', '--stdin'], content);
  const entries = git(dir, ['ls-tree', ref]);
  const tree = git(dir, ['mktree'], `${entries}\n100644 blob ${blob}\t${file}\n`);
  const commit = git(dir, ['commit-tree', tree, '-p', old, '-m', `add ${file}`]);
  git(dir, ['update-ref', ref, commit, old]);
  return commit;
}

/**
 * The baseline of the issue's figure: the same merges as one train, done by git alone. For each
 * branch `merge-tree --write-tree` and `commit-tree`, then one `update-ref` of main against its
 * old value. Returns the number of git processes it ran.
 */
export function mergeLoop(dir: string, branches: readonly string[]): number {
  const old = git(dir, ['rev-parse', 'refs/heads/main']);
  let head = old;
  let processes = 1;
  for (const branch of branches) {
    const tree = git(dir, ['merge-tree', '--write-tree', head, branch]).split('\n')[0] ?? '';
    head = git(dir, ['commit-tree', tree, '-p', head, '-p', branch, '-m', `merge ${branch}`]);
    processes += 2;
  }
  git(dir, ['update-ref', 'refs/heads/main', head, old]);
  return processes + 1;
}
