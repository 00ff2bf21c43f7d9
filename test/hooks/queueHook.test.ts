// `land hooks pre-receive --queue` on the bare server repository of a remote queue: a push that
// moves the target is accepted only with a renewal of refs/land/lease by the same holder (a child
// of the old value, neither released) in the same push. Real git, real pushes (`--atomic`), and
// the outcome read from the server's refs, not only from what git printed.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuePreReceiveScript } from '../../lib/hooks/scripts.js';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo, tempDir, type TestRepo } from '../helpers/repo.js';
import { BASIC_POLICY } from '../helpers/state.js';
import { canonicalLease, duplicateKeyLease, HOLDER, type LeaseFields, nonCanonicalLeases, OTHER } from '../helpers/leaseForms.js';
import { parseLeaseText } from '../../lib/store/remoteLayout.js';

afterAll(() => cleanupTempDirs());

const REFUSAL = 'land: refs/heads/main moves only in a landing push by the lease holder';
const LEASE = 'refs/land/lease';

function tryGit(cwd: string, args: string[], input?: string) {
  return spawnSync('git', args, { cwd, encoding: 'utf8', input });
}

/** A commit whose tree holds lease.json with these exact bytes, alone. */
function leaseTextCommit(repo: TestRepo, text: string, parent: string | null, message = 'land: lease'): string {
  const blob = tryGit(repo.dir, ['hash-object', '-w', '--stdin'], text).stdout.trim();
  const tree = tryGit(repo.dir, ['mktree'], `100644 blob ${blob}\tlease.json\n`).stdout.trim();
  return tryGit(repo.dir, ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message]).stdout.trim();
}

/** A lease commit as land writes it: lease.json (its one form, test/helpers/leaseForms.ts) alone in the tree. */
function leaseCommit(repo: TestRepo, lease: LeaseFields, parent: string | null): string {
  const held = lease.released ? 'released' : `held by ${lease.holder}`;
  return leaseTextCommit(repo, canonicalLease(lease), parent, `land: lease epoch ${lease.epoch ?? 1} ${held}`);
}

interface Setup {
  repo: TestRepo;
  server: string;
  /** The server's value of a ref ('' when it does not exist). */
  at(ref: string): string;
  /** One `git push --atomic` of these refspecs to the server. */
  push(...refspecs: string[]): ReturnType<typeof tryGit>;
}

/** A clone and its bare server: main and a lease (O, held by HOLDER) pushed, then the hook installed. */
async function setup(opts: { released?: boolean } = {}): Promise<Setup & { lease: string }> {
  const repo = makeRepo({ policy: BASIC_POLICY });
  const server = tempDir();
  tryGit(server, ['init', '-q', '--bare', '-b', 'main', '.']);
  const lease = leaseCommit(repo, { holder: HOLDER, released: opts.released }, null);
  expect(tryGit(repo.dir, ['push', '-q', server, 'main:main', `${lease}:${LEASE}`]).status).toBe(0);
  const printed = await land(repo.dir, ['hooks', 'pre-receive', '--queue']);
  expect(printed.code, printed.stderr).toBe(0);
  writeFileSync(join(server, 'hooks', 'pre-receive'), printed.stdout, { mode: 0o755 });
  return {
    repo,
    server,
    lease,
    at: (ref) => tryGit(server, ['rev-parse', '-q', '--verify', ref]).stdout.trim(),
    push: (...refspecs) => tryGit(repo.dir, ['push', '--atomic', '--porcelain', server, ...refspecs]),
  };
}

describe('land hooks pre-receive --queue', () => {
  let s: Setup & { lease: string };
  let before: string;
  let next: string;
  beforeAll(async () => {
    s = await setup();
    before = s.at('main');
    next = s.repo.commit('a change', { 'a.txt': 'a\n' });
  });

  it('refuses the target pushed alone, and moves nothing', () => {
    const result = s.push('main:main');
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${REFUSAL} (the push does not move ${LEASE})`);
    expect(s.at('main')).toBe(before);
  });

  it('refuses a takeover and a landing in one push (the holder changes), and moves neither ref', () => {
    const taken = leaseCommit(s.repo, { holder: OTHER, epoch: 2 }, s.lease);
    const result = s.push('main:main', `${taken}:${LEASE}`);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${REFUSAL} (the lease changes holder in this push, ${HOLDER} to ${OTHER})`);
    expect([s.at('main'), s.at(LEASE)]).toEqual([before, s.lease]);
  });

  it('refuses a lease commit whose first parent is not the old value', () => {
    // Same holder, but not a child of O (a new root; forced, so that the hook, not git's
    // fast-forward rule, is what refuses it).
    const orphan = leaseCommit(s.repo, { holder: HOLDER, epoch: 5 }, null);
    const result = s.push('main:main', `+${orphan}:${LEASE}`);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${REFUSAL} (the new lease commit's first parent is not the old value of ${LEASE})`);
    // A child of O's child, skipping O's renewal in between: its first parent is not O either.
    const skipped = leaseCommit(s.repo, { holder: HOLDER }, leaseCommit(s.repo, { holder: HOLDER }, s.lease));
    expect(s.push('main:main', `${skipped}:${LEASE}`).stderr).toContain('first parent is not the old value');
    expect([s.at('main'), s.at(LEASE)]).toEqual([before, s.lease]);
  });

  it('refuses a landing push that releases the lease, or deletes the target', () => {
    const releasing = leaseCommit(s.repo, { holder: HOLDER, released: true }, s.lease);
    expect(s.push('main:main', `${releasing}:${LEASE}`).stderr).toContain(`${REFUSAL} (the push releases the lease)`);
    const renewal = leaseCommit(s.repo, { holder: HOLDER }, s.lease);
    expect(s.push(':refs/heads/main', `${renewal}:${LEASE}`).stderr).toContain(`${REFUSAL} (a landing never deletes the target)`);
    expect([s.at('main'), s.at(LEASE)]).toEqual([before, s.lease]);
  });

  it('refuses a takeover and a landing in one push hidden in a duplicate key ("hold\\u0065r"), and moves neither ref', () => {
    // Read by a JSON parser, the new lease is OTHER's (the last key wins); by a line reader, HOLDER's.
    const attack = leaseTextCommit(s.repo, duplicateKeyLease(), s.lease);
    const result = s.push('main:main', `${attack}:${LEASE}`);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`(lease.json at ${attack} is not a lease as land writes it)`);
    expect([s.at('main'), s.at(LEASE)]).toEqual([before, s.lease]);
    expect(parseLeaseText(duplicateKeyLease())).toBeNull(); // and land does not read it either
  });

  it('refuses any push of a lease.json that is not byte for byte the form land writes, as land does', () => {
    for (const form of nonCanonicalLeases()) {
      const commit = leaseTextCommit(s.repo, form.text, s.lease);
      const result = s.push(`${commit}:${LEASE}`); // alone: no target in the push
      expect(result.status, form.name).not.toBe(0);
      expect(result.stderr, form.name).toContain(`land: ${LEASE} holds only lease.json exactly as land writes it (lease.json at ${commit} is not a lease`);
      expect(parseLeaseText(form.text), form.name).toBeNull();
    }
    expect(s.at(LEASE)).toBe(s.lease);
    // The form land writes is read the same by both.
    const text = canonicalLease({ holder: HOLDER, epoch: 7 });
    expect(parseLeaseText(text)).toEqual({ version: 1, holder: HOLDER, host: 'host-1', pid: 4242, epoch: 7, ttlSeconds: 60, released: false });
  });

  it("accepts the target with a renewal of the lease by the same holder (a drainer's landing)", () => {
    const renewal = leaseCommit(s.repo, { holder: HOLDER }, s.lease);
    const result = s.push('main:main', `${renewal}:${LEASE}`);
    expect(result.status, result.stderr).toBe(0);
    expect([s.at('main'), s.at(LEASE)]).toEqual([next, renewal]);
    s.lease = renewal;
  });

  it('passes pushes that leave the target alone: other branches, job refs, a takeover of the lease', () => {
    const job = leaseCommit(s.repo, { holder: 'ffff' }, null); // any commit will do as a job record here
    const taken = leaseCommit(s.repo, { holder: OTHER, epoch: 2 }, s.lease);
    const result = s.push('main:refs/heads/feature', `${job}:refs/land/jobs/x`, `${taken}:${LEASE}`);
    expect(result.status, result.stderr).toBe(0);
    expect([s.at('feature'), s.at('refs/land/jobs/x'), s.at(LEASE)]).toEqual([next, job, taken]);
  });

  it('takes no token file: --queue with --token-file is a usage error', async () => {
    const both = await land(s.repo.dir, ['hooks', 'pre-receive', '--queue', '--token-file', 'token']);
    expect(both.code).toBe(2);
    expect(both.stdout).toBe('');
    expect(both.stderr).toContain('use one of --queue and --token-file');
  });
});

describe('land hooks pre-receive --queue, a released lease', () => {
  it('refuses a landing on a lease that was released, even by its last holder', async () => {
    const s = await setup({ released: true });
    const before = s.at('main');
    s.repo.commit('a change', { 'a.txt': 'a\n' });
    const renewal = leaseCommit(s.repo, { holder: HOLDER }, s.lease);
    const result = s.push('main:main', `${renewal}:${LEASE}`);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${REFUSAL} (the lease was released)`);
    expect([s.at('main'), s.at(LEASE)]).toEqual([before, s.lease]);
  });
});

describe('land hooks pre-receive --queue and the drainer', () => {
  it('accepts land run landing through a remote queue, and refuses a push of the target by hand', async () => {
    const repo = makeRepo({ policy: { ...BASIC_POLICY, queue: { remote: 'origin', leaseSeconds: 30, pollSeconds: 0.5 } } });
    const server = tempDir();
    tryGit(server, ['init', '-q', '--bare', '-b', 'main', '.']);
    repo.git('remote', 'add', 'origin', server);
    repo.git('push', '-q', 'origin', 'main');
    writeFileSync(join(server, 'hooks', 'pre-receive'), (await land(repo.dir, ['hooks', 'pre-receive', '--queue'])).stdout, { mode: 0o755 });
    const tip = repo.branch('feature', { 'f.txt': 'f\n' });
    repo.git('push', '-q', 'origin', 'feature');
    expect((await land(repo.dir, ['submit', 'feature'])).code).toBe(0);
    const run = await land(repo.dir, ['run']);
    expect(run.code, run.stderr).toBe(0);
    expect(tryGit(server, ['rev-parse', 'main']).stdout.trim()).toBe(tip);

    repo.git('checkout', '-q', '-B', 'main', tip);
    repo.commit('by hand', { 'm.txt': 'm\n' });
    const refused = tryGit(repo.dir, ['push', 'origin', 'main']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain(REFUSAL);
    expect(tryGit(server, ['rev-parse', 'main']).stdout.trim()).toBe(tip);
  });
});

describe('queuePreReceiveScript', () => {
  it('embeds the target quoted: a name with quotes and $ is a literal, never shell syntax', () => {
    const target = `rel'$(touch pwned)"x`;
    const dir = tempDir();
    const path = join(dir, 'hook');
    writeFileSync(path, queuePreReceiveScript({ target }), { mode: 0o755 });
    expect(spawnSync('dash', ['-n', path]).status).toBe(0);
    const run = (line: string) => spawnSync('dash', [path], { cwd: dir, input: line, encoding: 'utf8', env: { ...process.env, GIT_CEILING_DIRECTORIES: dir } });
    const refused = run(`${'1'.repeat(40)} ${'2'.repeat(40)} refs/heads/${target}\n`);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe(`land: refs/heads/${target} moves only in a landing push by the lease holder (the push does not move ${LEASE})\n`);
    expect(run(`${'1'.repeat(40)} ${'2'.repeat(40)} refs/heads/rel\n`).status).toBe(0);
    expect(spawnSync('ls', [dir], { encoding: 'utf8' }).stdout.trim()).toBe('hook');
  });
});
