// Throwaway git repositories that behave the same on every machine: per-repo identity,
// no signing, no auto gc, branch main. Removed after the test.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

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

export function tempDir(prefix = 'land-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  tempDirs.push(dir);
  return dir;
}

export function makeRepo(opts: { policy?: Record<string, unknown>; bare?: boolean } = {}): TestRepo {
  const dir = tempDir();
  const git = (...args: string[]) => sh(dir, args);
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Land Test');
  git('config', 'user.email', 'test@land.invalid');
  git('config', 'commit.gpgSign', 'false');
  git('config', 'gc.auto', '0');
  git('config', 'core.hooksPath', '/dev/null');
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
      const current = git('symbolic-ref', '--quiet', '--short', 'HEAD');
      git('checkout', '-q', '-b', branch, from);
      const tip = commit(`change on ${branch}`, files);
      git('checkout', '-q', current);
      return tip;
    },
    policy: (policy) => commit('land policy', { '.ctm.json': `${JSON.stringify(policy, null, 2)}\n` }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
  commit('initial', { 'README.md': '# test repo\n' });
  if (opts.policy) repo.policy(opts.policy);
  return repo;
}

export function cleanupTempDirs(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
