// Refresh entries on a real train worktree: the triggered command runs and its changes are
// committed on top of the train; a failing or timed-out command fails the refresh.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { policySchema, type RefreshEntry } from '../../../lib/config/index.js';
import { addDetachedWorktree, pinWorktree, removeWorktree } from '../../../lib/git/index.js';
import { LogSink } from '../../../lib/landing/gates/logSink.js';
import { runRefresh, triggeredEntries } from '../../../lib/landing/gates/refresh.js';
import { openStore } from '../../../lib/store/index.js';
import { cleanupTempDirs, makeRepo, sh } from '../../helpers/repo.js';

afterAll(() => cleanupTempDirs());

function entriesOf(refresh: unknown[]): RefreshEntry[] {
  return policySchema.parse({ target: 'main', refresh }).refresh;
}

const LOCK = entriesOf([
  { paths: ['package.json'], run: 'wc -c < package.json | tr -d " " > package.lock', message: 'land: regenerate package.lock' },
  { paths: ['docs/**'], run: ['sh', '-c', 'echo docs > docs.index'], message: 'land: index docs' },
]);

async function setup(files: Record<string, string>, entries: RefreshEntry[]) {
  const repo = makeRepo();
  repo.commit('package', { 'package.json': '{}\n', 'package.lock': '3\n' });
  const base = repo.tip('main');
  const train = repo.branch('feature', files);
  const store = await openStore(repo.dir);
  const worktree = store.trainDir('t-refresh');
  await addDetachedWorktree(repo.dir, worktree, train);
  const logPath = store.logPath('t-refresh');
  const log = new LogSink(logPath);
  const run = async () => {
    try {
      return await runRefresh({ cwd: repo.dir, store, entries, base, train, worktree, pinned: pinWorktree(worktree), log });
    } finally {
      await log.close();
    }
  };
  return { repo, base, train, worktree, logPath, run, cleanup: () => removeWorktree(repo.dir, worktree) };
}

describe('triggeredEntries', () => {
  it('keeps the entries whose paths the change touches, in order', () => {
    expect(triggeredEntries(LOCK, ['package.json', 'docs/a.md']).map((e) => e.message)).toEqual(['land: regenerate package.lock', 'land: index docs']);
    expect(triggeredEntries(LOCK, ['src/a.ts'])).toEqual([]);
  });
});

describe('runRefresh', () => {
  it('regenerates a file when package.json changes and commits it on top of the train', async () => {
    const s = await setup({ 'package.json': '{"name":"x"}\n' }, LOCK);
    const outcome = await s.run();
    expect(outcome).toMatchObject({ kind: 'refreshed', entries: ['land: regenerate package.lock'] });
    if (outcome.kind !== 'refreshed') throw new Error('unreachable');
    expect(s.repo.git('rev-parse', `${outcome.commit}^`)).toBe(s.train);
    expect(s.repo.git('rev-parse', `${outcome.commit}^{tree}`)).toBe(outcome.tree);
    expect(s.repo.git('show', `${outcome.commit}:package.lock`)).toBe('13');
    expect(s.repo.git('log', '-1', '--format=%B', outcome.commit)).toContain('land: regenerate package.lock');
    expect(s.repo.git('log', '-1', '--format=%B', outcome.commit)).toContain(`Land-Refresh-Of: ${s.train}`);
    // The worktree is at the refresh commit, clean: the gates run on it.
    expect(sh(s.worktree, ['rev-parse', 'HEAD'])).toBe(outcome.commit);
    expect(sh(s.worktree, ['status', '--porcelain'])).toBe('');
    expect(readFileSync(s.logPath, 'utf8')).toContain('== refresh "land: regenerate package.lock"');
    // The branch and the target did not move.
    expect(s.repo.tip('feature')).toBe(s.train);
    expect(s.repo.tip('main')).toBe(s.base);
    await s.cleanup();
  });

  it('is unchanged when no entry is triggered, or when the command changes nothing', async () => {
    const untouched = await setup({ 'src/a.ts': 'a\n' }, LOCK);
    expect(await untouched.run()).toEqual({ kind: 'unchanged' });
    expect(existsSync(join(untouched.worktree, 'docs.index'))).toBe(false);
    await untouched.cleanup();

    const noop = await setup({ 'package.json': '{"name":"x"}\n' }, entriesOf([{ paths: ['package.json'], run: 'true', message: 'nothing' }]));
    expect(await noop.run()).toEqual({ kind: 'unchanged' });
    expect(sh(noop.worktree, ['rev-parse', 'HEAD'])).toBe(noop.train);
    await noop.cleanup();
  });

  it('fails on a non-zero exit or a timeout, naming the entry', async () => {
    const failing = await setup(
      { 'package.json': '{"name":"x"}\n' },
      entriesOf([{ paths: ['package.json'], run: 'echo broken >&2; exit 3', message: 'regenerate' }]),
    );
    expect(await failing.run()).toEqual({ kind: 'failed', entry: 'regenerate', status: 'exit 3' });
    expect(readFileSync(failing.logPath, 'utf8')).toContain('broken');
    await failing.cleanup();

    const slow = await setup(
      { 'package.json': '{"name":"x"}\n' },
      entriesOf([{ paths: ['package.json'], run: 'sleep 30', message: 'slow', timeoutSeconds: 0.5 }]),
    );
    expect(await slow.run()).toEqual({ kind: 'failed', entry: 'slow', status: 'timed out' });
    await slow.cleanup();
  });

  it('runs every triggered entry in order and commits them together', async () => {
    const s = await setup({ 'package.json': '{"name":"x"}\n', 'docs/a.md': 'a\n' }, LOCK);
    const outcome = await s.run();
    expect(outcome).toMatchObject({ kind: 'refreshed', entries: ['land: regenerate package.lock', 'land: index docs'] });
    if (outcome.kind !== 'refreshed') throw new Error('unreachable');
    expect(s.repo.git('show', `${outcome.commit}:docs.index`)).toBe('docs');
    expect(s.repo.git('diff-tree', '-r', '--name-only', '--no-commit-id', outcome.commit).split('\n').sort()).toEqual(['docs.index', 'package.lock']);
    await s.cleanup();
  });
});
