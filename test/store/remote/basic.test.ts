import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { makeTeam } from '../../helpers/remoteTeam.js';

afterAll(cleanupTempDirs);

describe('a server that declines the queue', () => {
  it('a submit refused by a server hook (not a lost race) is exit 13 at once, and nothing is queued anywhere', async () => {
    const team = makeTeam();
    const dev = team.clone('dev');
    writeFileSync(join(team.bare, 'hooks', 'pre-receive'), '#!/bin/sh\necho "no queue here" >&2\nexit 1\n');
    chmodSync(join(team.bare, 'hooks', 'pre-receive'), 0o755);
    dev.branch('feature', { 'a.txt': 'a\n' });
    // Before anything was submitted: what status says to a newcomer.
    expect((await land(dev.dir, ['status'])).stdout.split('\n').slice(1, 3)).toEqual([
      'queue kept in origin (refs/land/*); no drainer yet: nothing lands until one runs `land run`',
      'the queue is empty: no job submitted to origin yet (land submit <branch> queues one)',
    ]);
    const submitted = await land(dev.dir, ['submit', 'feature']);
    expect(submitted.code, submitted.stderr).toBe(13);
    expect(submitted.stderr).toMatch(/^land: the remote origin refused the push: refs\/land\/\S+ \[remote rejected\] \(pre-receive hook declined\)/);
    expect(team.server('for-each-ref', 'refs/land/')).toBe('');
    const status = await land(dev.dir, ['status', '--json']);
    expect(status.json().jobs).toEqual([]);
    // Accepted once the hook is gone; with no drainer holding the lease there is no ETA, and status says why.
    writeFileSync(join(team.bare, 'hooks', 'pre-receive'), '#!/bin/sh\nexit 0\n');
    expect((await land(dev.dir, ['submit', 'feature'])).code).toBe(0);
    const queued = await land(dev.dir, ['status']);
    expect(queued.stdout).toMatch(/^1 +j-\S+ +queued +feature +[0-9a-f]{12} +\S+ +\? *$/m);
    expect(queued.stdout).toContain("eta: no drainer holds the queue's lease now: nothing lands until one runs `land run`");
  });
});

describe('naming the queue', () => {
  it('a queue remote that is not a remote of this clone, a bad queue section, and a remote without the target are config errors (exit 3)', async () => {
    const team = makeTeam();
    const dev = team.clone('dev');
    const unknown = await land(dev.dir, ['status', '--queue-remote', 'nowhere']);
    expect(unknown.code, unknown.stderr).toBe(3);
    expect(unknown.stderr.split('\n')[0]).toBe('land: the queue\'s remote "nowhere" is not a remote of this clone');

    dev.git('checkout', '-q', 'main');
    writeFileSync(join(dev.dir, '.ctm.json'), `${JSON.stringify({ target: 'main', queue: { remote: 'origin', leaseSeconds: 1 } })}\n`);
    dev.git('commit', '-q', '-am', 'a lease too short');
    const bad = await land(dev.dir, ['status']);
    expect(bad.code, bad.stderr).toBe(3);
    expect(bad.stderr.split('\n')[0]).toMatch(/^land: \.ctm\.json at refs\/heads\/main: queue\.leaseSeconds: /);

    const other = await land(dev.dir, ['status', '--target', 'trunk', '--queue-remote', 'origin']);
    expect(other.code, other.stderr).toBe(3);
    expect(other.stderr.split('\n')[0]).toBe('land: the remote origin has no branch trunk');
  });
});
