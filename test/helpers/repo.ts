// Throwaway git repositories that behave the same on every machine: per-repo identity,
// no signing, no auto gc, branch main. Removed after the test.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, mkdirSync, readFileSync, realpathSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findBwrap } from '../../lib/proc/sandbox/mechanism.js';

export function sh(cwd: string, args: string[], input?: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] }).trim();
}

export interface TestRepo {
  dir: string;
  git(...args: string[]): string;
  write(path: string, content: string): void;
  commit(message: string, files?: Record<string, string>): string;
  /** Creates `branch` from `from` (default main) with one commit writing `files`; returns its tip. */
  branch(branch: string, files: Record<string, string>, from?: string): string;
  tip(ref: string): string;
  policy(policy: Record<string, unknown>): string;
  cleanup(): void;
}

export const tempDirs: string[] = [];

/**
 * The folder every temporary folder of this test process is made in. A test policy with gates and
 * no `sandbox` key of its own gets it read-write in the gate sandbox (withTestSandbox), so fixture
 * gates can write their run counters and flags there; the repositories' git folders in it stay
 * read-only and their state folders hidden (the sandbox mounts those protections last). The
 * hostile-gate tests write their own `sandbox` key and get none of it.
 */
let testRoot: string | null = null;
export function testScratchRoot(): string {
  testRoot ??= realpathSync(mkdtempSync(join(tmpdir(), 'land-tests-')));
  return testRoot;
}

export function tempDir(prefix = 'land-test-'): string {
  const dir = realpathSync(mkdtempSync(join(testScratchRoot(), prefix)));
  tempDirs.push(dir);
  return dir;
}

/**
 * The policy's sandbox for the tests of what land does without one (docs/sandbox.md: "what a gate can
 * still do"): their gate is the attacker or the outside actor (it moves the target, removes the state
 * folder, leaves processes for the descendant scan), which a sandbox would stop before the test sees
 * land's own defence.
 */
export const UNSANDBOXED = { mode: 'off' } as const;

/** A test policy with gates and no sandbox key: the test process's scratch root read-write in the sandbox. */
export function withTestSandbox(policy: Record<string, unknown>): Record<string, unknown> {
  const runsCode = (Array.isArray(policy.gates) && policy.gates.length > 0) || (Array.isArray(policy.refresh) && policy.refresh.length > 0);
  if (!runsCode || 'sandbox' in policy) return policy;
  // Without bubblewrap (and without LAND_REQUIRE_SANDBOX=1, as in CI) a remote queue's default
  // `required` would refuse every gate: these tests are not about the sandbox, so they run unsandboxed.
  const mode = sandboxOptional() ? { mode: 'auto' } : {};
  return { ...policy, sandbox: { ...mode, readWrite: [testScratchRoot()] } };
}

/** No bubblewrap here and none demanded: the test sandbox falls back to `auto`. */
function sandboxOptional(): boolean {
  return findBwrap() === null && process.env.LAND_REQUIRE_SANDBOX !== '1';
}

/**
 * The settings every throwaway repository gets, written straight into its config file (no `git
 * config` process per setting).
 */
const REPO_CONFIG = [
  '[user]',
  '\tname = Land Test',
  '\temail = test@land.invalid',
  '[commit]',
  '\tgpgSign = false',
  '[gc]',
  '\tauto = 0',
  '[core]',
  '\thooksPath = /dev/null',
  '',
].join('\n');

let marksFiles = 0;

const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;

export interface FastCommit {
  /** The ref the commit goes on (refs/heads/<name>). */
  ref: string;
  message: string;
  files: Record<string, string>;
  /** Its parent; without it, the commit before on the same ref in this call (or none: a root commit). */
  from?: string;
}

/**
 * Writes commits with one `git fast-import` (instead of checkout, add, commit and rev-parse per
 * commit): each adds `files` to its parent's tree. Returns the commits' ids, in order.
 */
export function fastCommits(dir: string, commits: readonly FastCommit[], committer = 'Land Test <test@land.invalid>'): string[] {
  marksFiles += 1;
  const marks = join(tmpdir(), `land-marks-${process.pid}-${marksFiles}`);
  const chunks: string[] = [];
  for (const [i, c] of commits.entries()) {
    chunks.push(`commit ${c.ref}\n`, `mark :${i + 1}\n`, `committer ${committer} now\n`, data(`${c.message}\n`));
    if (c.from !== undefined) chunks.push(`from ${c.from}\n`);
    for (const [path, content] of Object.entries(c.files)) chunks.push(`M 100644 inline ${path}\n`, data(content));
  }
  execFileSync('git', ['fast-import', '--quiet', '--date-format=now', `--export-marks=${marks}`], {
    cwd: dir,
    input: chunks.join(''),
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  const byMark = new Map(
    readFileSync(marks, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ') as [string, string]),
  );
  rmSync(marks, { force: true });
  return commits.map((_, i) => byMark.get(`:${i + 1}`) as string);
}

/** A loose or packed refs/heads/<branch> in the repository whose git dir is `gitDir`. */
export function branchExists(gitDir: string, branch: string): boolean {
  const packed = join(gitDir, 'packed-refs');
  return existsSync(join(gitDir, 'refs', 'heads', branch)) || (existsSync(packed) && readFileSync(packed, 'utf8').includes(` refs/heads/${branch}\n`));
}

/**
 * Whether a new `branch` can be written with fastCommits and give the same commit a checkout, add
 * and commit would: the branch does not exist yet (checkout -b would refuse it) and the work tree and
 * index are clean (`add -A` would take anything else in too).
 */
export function fastBranchable(dir: string, ...branches: string[]): boolean {
  return !branches.some((branch) => branchExists(join(dir, '.git'), branch)) && sh(dir, ['status', '--porcelain', '--untracked-files=all']) === '';
}

export function makeRepo(opts: { policy?: Record<string, unknown>; bare?: boolean } = {}): TestRepo {
  const dir = tempDir();
  const git = (...args: string[]) => sh(dir, args);
  git('init', '-q', '-b', 'main');
  appendFileSync(join(dir, '.git', 'config'), REPO_CONFIG);
  const write = (path: string, content: string) => {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  };
  const commit = (message: string, files: Record<string, string> = {}) => {
    for (const [path, content] of Object.entries(files)) write(path, content);
    git('add', '-A');
    git('commit', '-q', '--allow-empty', '-m', message);
    return git('rev-parse', 'HEAD');
  };
  const repo: TestRepo = {
    dir,
    git,
    write,
    commit,
    tip: (ref) => git('rev-parse', ref),
    branch: (branch, files, from = 'main') => {
      // Checked out, the commit would also take whatever the work tree holds besides `files`: made
      // without a checkout only when the work tree and index are clean (the same commit either way).
      if (!fastBranchable(dir, branch)) {
        const current = git('symbolic-ref', '--quiet', '--short', 'HEAD');
        git('checkout', '-q', '-b', branch, from);
        const tip = commit(`change on ${branch}`, files);
        git('checkout', '-q', current);
        return tip;
      }
      return fastCommits(dir, [{ ref: `refs/heads/${branch}`, message: `change on ${branch}`, files, from }])[0] as string;
    },
    policy: (policy) => commit('land policy', { '.ctm.json': `${JSON.stringify(withTestSandbox(policy), null, 2)}\n` }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
  // The initial commit (and the policy's) in one fast-import, then checked out: index and work tree as `commit` leaves them.
  const initial: FastCommit[] = [{ ref: 'refs/heads/main', message: 'initial', files: { 'README.md': '# test repo\n' } }];
  if (opts.policy)
    initial.push({ ref: 'refs/heads/main', message: 'land policy', files: { '.ctm.json': `${JSON.stringify(withTestSandbox(opts.policy), null, 2)}\n` } });
  fastCommits(dir, initial);
  git('reset', '-q', '--hard');
  return repo;
}

export function cleanupTempDirs(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  // The root too, once it holds nothing: made again by the next tempDir.
  if (testRoot !== null) {
    try {
      rmdirSync(testRoot);
      testRoot = null;
    } catch {
      // still holds a folder made without tempDir's list (none should): left for the OS
    }
  }
}
