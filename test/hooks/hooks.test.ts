// `land hooks install|uninstall|pre-receive` end to end: with the reference-transaction hook
// installed, nothing but the holder of the landing token moves the target; every other ref is
// unaffected. Asserted on the refs themselves, not only on what git printed.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../lib/store/index.js';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo, tempDir, type TestRepo } from '../helpers/repo.js';
import { BASIC_POLICY } from '../helpers/state.js';

afterAll(() => cleanupTempDirs());

const REFUSAL = 'land: main is protected: use `land submit` to land changes (refusing update of refs/heads/main)';

/** git without throwing; LAND_TOKEN is removed from the environment unless given. */
function tryGit(cwd: string, args: string[], env: Record<string, string> = {}) {
  const { LAND_TOKEN: _drop, ...rest } = process.env;
  return spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...rest, ...env } });
}

function hookedRepo(policy: Record<string, unknown> = BASIC_POLICY): TestRepo {
  const repo = makeRepo({ policy });
  repo.git('config', '--unset', 'core.hooksPath'); // the helper points hooks at /dev/null
  return repo;
}

async function install(repo: TestRepo, extra: string[] = []) {
  const result = await land(repo.dir, ['hooks', 'install', '--json', ...extra]);
  expect(result.code, result.stderr).toBe(0);
  return result.json();
}

describe('land hooks install', () => {
  it('writes an executable reference-transaction hook into git hooks folder', async () => {
    const repo = hookedRepo();
    const out = await install(repo);
    const hook = join(repo.dir, '.git', 'hooks', 'reference-transaction');
    expect(out).toMatchObject({ hooksDir: join(repo.dir, '.git', 'hooks'), target: 'main', tokenFile: join(repo.dir, '.git', 'land', 'token') });
    expect(out.installed).toEqual([{ hook: 'reference-transaction', path: hook, action: 'created' }]);
    expect(statSync(hook).mode & 0o111).toBe(0o111);
    expect(readFileSync(hook, 'utf8')).toContain('# land-managed-hook');
    expect(existsSync(join(repo.dir, '.git', 'hooks', 'pre-push'))).toBe(false);
  });

  it('refuses update-ref, merge and push onto the target without the token; the ref does not move', async () => {
    const repo = hookedRepo();
    const main = repo.tip('main');
    const other = repo.branch('other', { 'o.txt': 'o\n' });
    await install(repo);

    const updateRef = tryGit(repo.dir, ['update-ref', 'refs/heads/main', other]);
    expect(updateRef.status).not.toBe(0);
    expect(updateRef.stderr).toContain(REFUSAL);
    expect(repo.tip('main')).toBe(main);

    const merge = tryGit(repo.dir, ['merge', '--no-edit', 'other']);
    expect(merge.status).not.toBe(0);
    expect(merge.stderr).toContain(REFUSAL);
    expect(repo.tip('main')).toBe(main);
    // Put the checkout back: a reset to the same commit moves nothing and is allowed.
    expect(tryGit(repo.dir, ['reset', '-q', '--hard', 'main']).status).toBe(0);

    const noFf = tryGit(repo.dir, ['merge', '--no-ff', '--no-edit', 'other']);
    expect(noFf.status).not.toBe(0);
    expect(repo.tip('main')).toBe(main);
    expect(tryGit(repo.dir, ['reset', '-q', '--hard', 'main']).status).toBe(0);

    const commit = tryGit(repo.dir, ['commit', '--allow-empty', '-m', 'direct']);
    expect(commit.status).not.toBe(0);
    expect(repo.tip('main')).toBe(main);

    const deletion = tryGit(repo.dir, ['update-ref', '-d', 'refs/heads/main']);
    expect(deletion.status).not.toBe(0);
    expect(repo.tip('main')).toBe(main);

    // A push from a clone is refused by the same hook in the receiving repository.
    repo.git('config', 'receive.denyCurrentBranch', 'ignore');
    const clone = tempDir();
    expect(tryGit(clone, ['clone', '-q', repo.dir, '.']).status).toBe(0);
    tryGit(clone, ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'core.hooksPath=/dev/null', 'commit', '-q', '--allow-empty', '-m', 'pushed']);
    const push = tryGit(clone, ['push', 'origin', 'HEAD:main']);
    expect(push.status).not.toBe(0);
    expect(push.stderr).toContain('protected');
    expect(repo.tip('main')).toBe(main);
  });

  it('lets the holder of the current token update the target, and only with that token', async () => {
    const repo = hookedRepo();
    const main = repo.tip('main');
    const other = repo.branch('other', { 'o.txt': 'o\n' });
    await install(repo);
    const store = await openStore(repo.dir);

    // No drainer running (no token file): even a LAND_TOKEN is refused.
    expect(tryGit(repo.dir, ['update-ref', 'refs/heads/main', other, main], { LAND_TOKEN: 'guess' }).status).not.toBe(0);
    // This test process stands for the drainer: it arms a token; the file holds only its hash.
    const token = store.writeToken();
    const file = readFileSync(store.tokenFile(), 'utf8');
    expect(file).not.toContain(token);
    expect(tryGit(repo.dir, ['update-ref', 'refs/heads/main', other, main], { LAND_TOKEN: file.trim() }).status).not.toBe(0);
    expect(tryGit(repo.dir, ['update-ref', 'refs/heads/main', other, main], { LAND_TOKEN: file.split(' ')[0] as string }).status).not.toBe(0);
    expect(tryGit(repo.dir, ['update-ref', 'refs/heads/main', other, main], { LAND_TOKEN: `${token}x` }).status).not.toBe(0);
    expect(repo.tip('main')).toBe(main);
    const allowed = tryGit(repo.dir, ['update-ref', 'refs/heads/main', other, main], { LAND_TOKEN: token });
    expect(allowed.status, allowed.stderr).toBe(0);
    expect(repo.tip('main')).toBe(other);
    store.clearToken(token);
    expect(tryGit(repo.dir, ['update-ref', 'refs/heads/main', main, other], { LAND_TOKEN: token }).status).not.toBe(0);
    expect(repo.tip('main')).toBe(other);
  });

  it('lets `land run` land through the hook (the drainer holds the token), and only while it runs', async () => {
    const repo = hookedRepo();
    const main = repo.tip('main');
    repo.branch('feature', { 'f.txt': 'f\n' });
    await install(repo);
    const submitted = await land(repo.dir, ['submit', 'feature', '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines().at(-1)).toMatchObject({ type: 'summary', landed: [submitted.json().job.id] });
    expect(repo.git('rev-parse', 'main~1')).toBe(main);
    expect(repo.git('show', 'main:f.txt')).toBe('f');
    expect(existsSync(join(repo.dir, '.git', 'land', 'token'))).toBe(false);
  });

  it('leaves every other ref alone, and housekeeping that does not move the target', async () => {
    const repo = hookedRepo();
    const main = repo.tip('main');
    const other = repo.branch('other', { 'o.txt': 'o\n' });
    await install(repo);
    expect(tryGit(repo.dir, ['update-ref', 'refs/heads/other', main]).status).toBe(0);
    expect(repo.tip('other')).toBe(main);
    expect(tryGit(repo.dir, ['branch', 'fresh', other]).status).toBe(0);
    expect(tryGit(repo.dir, ['branch', '-D', 'fresh']).status).toBe(0);
    expect(tryGit(repo.dir, ['tag', 'v1', other]).status).toBe(0);
    const packed = tryGit(repo.dir, ['pack-refs', '--all']);
    expect(packed.status, packed.stderr).toBe(0);
    expect(repo.tip('main')).toBe(main);
    // After packing, the target is still protected, against a move and a deletion.
    expect(tryGit(repo.dir, ['update-ref', 'refs/heads/main', other]).status).not.toBe(0);
    expect(tryGit(repo.dir, ['update-ref', '-d', 'refs/heads/main']).status).not.toBe(0);
    expect(repo.tip('main')).toBe(main);
    // A landing (loose ref again), then git gc, which packs and prunes it: allowed, nothing moves.
    const store = await openStore(repo.dir);
    const token = store.writeToken();
    expect(tryGit(repo.dir, ['update-ref', 'refs/heads/main', other, main], { LAND_TOKEN: token }).status).toBe(0);
    store.clearToken(token);
    const gc = tryGit(repo.dir, ['gc', '-q']);
    expect(gc.status, gc.stderr).toBe(0);
    expect(gc.stderr).not.toContain('protected');
    expect(repo.tip('main')).toBe(other);
    expect(readFileSync(join(repo.dir, '.git', 'packed-refs'), 'utf8')).toContain(`${other} refs/heads/main`);
    expect(tryGit(repo.dir, ['update-ref', '-d', 'refs/heads/main']).status).not.toBe(0);
    expect(repo.tip('main')).toBe(other);
  });

  it('does not overwrite a hook it did not write unless --force; reinstalls its own', async () => {
    const repo = hookedRepo();
    const hook = join(repo.dir, '.git', 'hooks', 'reference-transaction');
    writeFileSync(hook, '#!/bin/sh\necho mine\n', { mode: 0o755 });
    const refused = await land(repo.dir, ['hooks', 'install']);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('was not written by land');
    expect(readFileSync(hook, 'utf8')).toBe('#!/bin/sh\necho mine\n');

    const forced = await install(repo, ['--force']);
    expect(forced.installed[0].action).toBe('replaced');
    const again = await install(repo);
    expect(again.installed[0].action).toBe('replaced');
    expect(readFileSync(hook, 'utf8')).toContain('# land-managed-hook');
  });

  it('explains a hooks folder that is not a folder (core.hooksPath=/dev/null)', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    const result = await land(repo.dir, ['hooks', 'install']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('/dev/null is not a folder');
  });
});

describe('land hooks uninstall', () => {
  it("removes its own hooks and keeps anyone else's", async () => {
    const repo = hookedRepo();
    const other = repo.branch('other', { 'o.txt': 'o\n' });
    await install(repo, ['--pre-push']);
    const foreign = join(repo.dir, '.git', 'hooks', 'post-commit');
    writeFileSync(foreign, '#!/bin/sh\n', { mode: 0o755 });
    const result = await land(repo.dir, ['hooks', 'uninstall', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json().removed.sort()).toEqual([join(repo.dir, '.git', 'hooks', 'pre-push'), join(repo.dir, '.git', 'hooks', 'reference-transaction')]);
    expect(existsSync(foreign)).toBe(true);
    expect(tryGit(repo.dir, ['update-ref', 'refs/heads/main', other]).status).toBe(0);
    expect(repo.tip('main')).toBe(other);

    writeFileSync(join(repo.dir, '.git', 'hooks', 'pre-push'), '#!/bin/sh\n', { mode: 0o755 });
    const kept = await land(repo.dir, ['hooks', 'uninstall', '--json']);
    expect(kept.json()).toMatchObject({ removed: [], kept: [join(repo.dir, '.git', 'hooks', 'pre-push')] });
  });
});

describe('land hooks pre-receive', () => {
  it('prints a pre-receive hook that protects a server repository the same way', async () => {
    const repo = hookedRepo();
    const store = await openStore(repo.dir);
    const printed = await land(repo.dir, ['hooks', 'pre-receive']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain('# land-managed-hook');

    const server = tempDir();
    tryGit(server, ['init', '-q', '--bare', '-b', 'main', '.']);
    writeFileSync(join(server, 'hooks', 'pre-receive'), printed.stdout, { mode: 0o755 });
    expect(tryGit(repo.dir, ['push', '-q', server, 'main:feature']).status).toBe(0);
    const refused = tryGit(repo.dir, ['push', server, 'main:main']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('land: main is protected');
    expect(tryGit(server, ['rev-parse', '--verify', '-q', 'refs/heads/main']).stdout).toBe('');
    // The drainer (this test process) arms a token: a push on the same machine passes the
    // environment to receive-pack, which checks it against the token file's hash.
    const token = store.writeToken();
    expect(tryGit(repo.dir, ['push', server, 'main:main'], { LAND_TOKEN: readFileSync(store.tokenFile(), 'utf8').trim() }).status).not.toBe(0);
    const allowed = tryGit(repo.dir, ['push', server, 'main:main'], { LAND_TOKEN: token });
    expect(allowed.status, allowed.stderr).toBe(0);
    store.clearToken(token);
    expect(tryGit(server, ['rev-parse', 'refs/heads/main']).stdout.trim()).toBe(repo.tip('main'));
  });
});

describe('land hooks pre-receive and the drainer', () => {
  it("accepts the drainer's publish push (its own token for the push) and nobody else's", async () => {
    const repo = hookedRepo({ ...BASIC_POLICY, publish: { auto: true } });
    const server = tempDir();
    tryGit(server, ['init', '-q', '--bare', '-b', 'main', '.']);
    repo.git('remote', 'add', 'origin', server);
    expect(tryGit(repo.dir, ['push', '-q', 'origin', 'main']).status).toBe(0);
    const printed = await land(repo.dir, ['hooks', 'pre-receive']);
    writeFileSync(join(server, 'hooks', 'pre-receive'), printed.stdout, { mode: 0o755 });
    repo.branch('feature', { 'f.txt': 'f\n' });
    expect((await land(repo.dir, ['submit', 'feature'])).code).toBe(0);
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines().filter((e) => e.type === 'published')).toHaveLength(1);
    expect(tryGit(server, ['rev-parse', 'main']).stdout.trim()).toBe(repo.tip('main'));
    // By hand, even with a LAND_TOKEN: refused, the server's main stays.
    repo.git('checkout', '-q', '-b', 'manual', 'main');
    repo.commit('manual', { 'm.txt': 'm\n' });
    const refused = tryGit(repo.dir, ['push', 'origin', 'manual:main'], { LAND_TOKEN: 'guess' });
    expect(refused.status).not.toBe(0);
    expect(tryGit(server, ['rev-parse', 'main']).stdout.trim()).toBe(repo.tip('main'));
  }, 120_000);
});

describe('land hooks install --pre-push', () => {
  it('proves HEAD before a push and refuses the push when the proof fails', async () => {
    const repo = hookedRepo({ target: 'main', gates: [{ name: 'no-bad-file', run: ['sh', '-c', 'test ! -e bad.txt'] }] });
    const out = await install(repo, ['--pre-push']);
    expect(out.installed.map((h: { hook: string }) => h.hook)).toEqual(['reference-transaction', 'pre-push']);
    const server = tempDir();
    tryGit(server, ['init', '-q', '--bare', '-b', 'main', '.']);
    repo.git('remote', 'add', 'origin', server);

    repo.git('checkout', '-q', '-b', 'good');
    repo.commit('good', { 'good.txt': 'g\n' });
    const pushed = tryGit(repo.dir, ['push', 'origin', 'good']);
    expect(pushed.status, pushed.stderr).toBe(0);
    const tree = repo.git('merge-tree', '--write-tree', 'main', 'good');
    const proof = JSON.parse(readFileSync(join(repo.dir, '.git', 'land', 'proofs', `${tree}.json`), 'utf8'));
    expect(proof).toMatchObject({ source: 'local', verdict: 'PASS', tree });

    repo.git('checkout', '-q', '-b', 'bad');
    repo.commit('bad', { 'bad.txt': 'b\n' });
    const refused = tryGit(repo.dir, ['push', 'origin', 'bad']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('land prove failed');
    expect(tryGit(server, ['rev-parse', '--verify', '-q', 'refs/heads/bad']).stdout).toBe('');
  });
});
