// What a remote queue relies on from the git server, over both transports a team uses (file:// and
// ssh:// through a real sshd): separate clones, and `git push --atomic --force-with-lease` as a
// compare-and-swap the server decides. Two clones push at once; a pre-receive barrier holds both
// pushes until both are past the ref advertisement, so the client-side lease check passes for both
// and only the server's ref transaction can refuse one. Then the land CLI itself over the transport.
import { execFile } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { cloneOf, makeRemoteSetup, stopRemoteServers, transportCases, type RemoteSetup } from '../../helpers/remote.js';
import { cleanupTempDirs, sh, tempDir } from '../../helpers/repo.js';
import type { Clone } from '../../helpers/remoteTeam.js';

afterAll(async () => {
  await stopRemoteServers();
  cleanupTempDirs();
});

interface Pushed {
  code: number;
  stderr: string;
}

function gitAsync(cwd: string, args: string[]): Promise<Pushed> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, encoding: 'utf8', timeout: 60_000 }, (error, _stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stderr });
    });
  });
}

/**
 * Makes the server's pre-receive hook wait until `count` pushes have reached it (at most 30 s), so
 * that concurrent pushes are all past the client-side lease check before any ref moves.
 */
function barrier(setup: RemoteSetup, count: number): void {
  const dir = tempDir('land-barrier-');
  const hook = join(setup.bare, 'hooks', 'pre-receive');
  writeFileSync(
    hook,
    [
      '#!/bin/sh',
      'cat >/dev/null',
      `touch "${dir}/arrived.$$"`,
      'i=0',
      `while [ "$(ls "${dir}" | wc -l)" -lt ${count} ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done`,
      'exit 0',
      '',
    ].join('\n'),
  );
  chmodSync(hook, 0o755);
}

/** A new commit in `clone` (on no branch) whose tree holds one file naming `who`. */
function commitOf(clone: Clone, who: string): string {
  const blob = sh(clone.dir, ['hash-object', '-w', '--stdin'], `${who}\n`);
  const tree = sh(clone.dir, ['mktree'], `100644 blob ${blob}\twho\n`);
  return clone.git('commit-tree', tree, '-m', `from ${who}`);
}

/** Pushes `oid` to refs/land/x (lease: `expected`; '' = must not exist) and `refs/land/also-<who>`, atomically. */
function casPush(clone: Clone, oid: string, who: string, expected: string): Promise<Pushed> {
  return gitAsync(clone.dir, [
    'push',
    '--atomic',
    '--porcelain',
    `--force-with-lease=refs/land/x:${expected}`,
    'origin',
    `${oid}:refs/land/x`,
    `${oid}:refs/land/also-${who}`,
  ]);
}

function serverRef(setup: RemoteSetup, ref: string): string | null {
  const out = setup.server('for-each-ref', '--format=%(objectname)', ref);
  return out === '' ? null : out;
}

for (const t of transportCases()) {
  describe.skipIf(!t.available)(t.title, () => {
    it(`clones push refs/land/x with --atomic --force-with-lease at once: the server takes exactly one (create, then move)`, async () => {
      const setup = await makeRemoteSetup({ transport: t.transport });
      const a = cloneOf(setup, 'a');
      const b = cloneOf(setup, 'b');
      expect(a.git('remote', 'get-url', 'origin')).toBe(setup.url);
      expect(setup.url.startsWith(t.transport === 'ssh' ? 'ssh://' : 'file://')).toBe(true);
      const oids = { a: commitOf(a, 'a'), b: commitOf(b, 'b') };

      const race = async (expected: string) => {
        barrier(setup, 2);
        const [ra, rb] = await Promise.all([casPush(a, oids.a, 'a', expected), casPush(b, oids.b, 'b', expected)]);
        const results = { a: ra, b: rb };
        const won = (['a', 'b'] as const).filter((who) => results[who].code === 0);
        expect(won, `${ra.stderr}\n${rb.stderr}`).toHaveLength(1);
        const winner = won[0] as 'a' | 'b';
        const loser = winner === 'a' ? 'b' : 'a';
        expect(serverRef(setup, 'refs/land/x')).toBe(oids[winner]);
        // Atomic: the refused push moved none of its refs.
        expect(serverRef(setup, `refs/land/also-${winner}`)).toBe(oids[winner]);
        expect(serverRef(setup, `refs/land/also-${loser}`)).toBeNull();
        setup.server('update-ref', '-d', `refs/land/also-${winner}`);
        return { winner, loser };
      };

      // Both see refs/land/x missing and both send "create": one transaction fails.
      const first = await race('');
      // Both now move it with a lease on its current value: again exactly one.
      const current = oids[first.winner];
      oids.a = commitOf(a, 'a2');
      oids.b = commitOf(b, 'b2');
      await race(current);
      // A lease on a value that is no longer there is refused, and nothing moves.
      const before = serverRef(setup, 'refs/land/x');
      setup.server('config', 'core.hooksPath', '/dev/null');
      const stale = await casPush(a, commitOf(a, 'late'), 'late', current);
      expect(stale.code).not.toBe(0);
      expect(serverRef(setup, 'refs/land/x')).toBe(before);
      expect(serverRef(setup, 'refs/land/also-late')).toBeNull();
    });
  });
}

// The land CLI over ssh:// (test/store/remote/teamSubmit.test.ts and team.test.ts tell the same story over file://).
const ssh = transportCases().find((t) => t.transport === 'ssh');
describe.skipIf(!ssh?.available)(`land ${ssh?.title ?? 'over ssh://'}`, () => {
  it('land submit in one clone, status in another, a drain in a fresh clone: landed on the server, the failure told in the other', async () => {
    const setup = await makeRemoteSetup({ transport: 'ssh' });
    const dev = cloneOf(setup, 'dev');
    dev.branch('feature', { 'a.txt': 'a\n' });
    dev.branch('bad', { broken: 'yes\n' });
    const submitted = await land(dev.dir, ['submit', 'feature', '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const id = submitted.json().job.id as string;
    const failing = await land(dev.dir, ['submit', 'bad', '--json']);
    expect(failing.code, failing.stderr).toBe(0);
    const bad = failing.json().job.id as string;
    expect(setup.server('for-each-ref', '--format=%(refname)', 'refs/land/')).toContain(`refs/land/jobs/${id}`);
    const other = cloneOf(setup, 'other');
    const status = await land(other.dir, ['status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json().jobs.map((j: { id: string }) => j.id)).toEqual([id, bad]);
    const ci = cloneOf(setup, 'ci');
    const run = await land(ci.dir, ['run']);
    expect(run.code, run.stderr).toBe(0);
    expect(setup.server('show', 'main:a.txt')).toBe('a');
    const show = await land(other.dir, ['show', id, '--json']);
    expect(show.json().state).toBe('landed');
    // The team story over ssh (failureStory.test.ts over file://): the job the CI clone's drainer
    // failed is logged, told, reproduced and counted in a clone that ran no gate.
    const log = await land(other.dir, ['log', bad]);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toContain('== gate test');
    const why = await land(other.dir, ['why', bad]);
    expect(why.code, why.stderr).toBe(0);
    expect(why.stdout).toContain('verdict FAIL');
    const repro = await land(other.dir, ['repro', bad, '--run']);
    expect(repro.code, repro.stderr).toBe(5);
    expect(repro.stderr).toContain('the failure reproduced');
    const stats = await land(other.dir, ['stats', '--json']);
    expect(stats.json().gateRuns.total).toBeGreaterThan(0);
    // About twenty ssh sessions (submit 3, status 1, the run ~9, show, log, why, repro, stats 1 each): room for a loaded machine.
  }, 180_000);
});
