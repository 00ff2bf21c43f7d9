// lease.json has one form (security issue, item 10): land reads a lease only when its bytes are
// exactly that form, as the server's `pre-receive --queue` hook does (test/hooks/queueHook.test.ts).
// A lease pushed in any other form (here the duplicate-key attack, put on a server without the hook)
// is a lease of an unknown holder: nobody is told it is free, and a drainer takes it over once it
// has stood unmoved for the lease's time, as a dead holder's; the drain is never wedged by it.
import { afterAll, describe, expect, it } from 'vitest';
import { leaseHost, leaseText, parseLeaseText } from '../../../lib/store/remoteLayout.js';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs, sh } from '../../helpers/repo.js';
import { canonicalLease, duplicateKeyLease, HOLDER, nonCanonicalLeases } from '../../helpers/leaseForms.js';
import { makeTeam, queuePolicy } from '../../helpers/remoteTeam.js';

afterAll(cleanupTempDirs);

describe('the one form of lease.json', () => {
  it('land writes one form and reads nothing else', () => {
    const lease = { version: 1 as const, holder: HOLDER, host: 'host-1', pid: 4242, epoch: 1, ttlSeconds: 60, released: false };
    expect(leaseText(lease)).toBe(canonicalLease({ holder: HOLDER }));
    expect(parseLeaseText(leaseText(lease))).toEqual(lease);
    for (const form of nonCanonicalLeases()) expect(parseLeaseText(form.text), form.name).toBeNull();
    // A host name with characters the form does not take is written with '-' in their place.
    expect(leaseHost('my laptop"\u00e9')).toBe('my-laptop--');
    expect(parseLeaseText(leaseText({ ...lease, host: leaseHost('my laptop"') }))).not.toBeNull();
  });

  it('a lease pushed with a duplicate key is unreadable to land: the holder is unknown, and it is taken over once it expires', async () => {
    const team = makeTeam({ policy: queuePolicy({ leaseSeconds: 2, pollSeconds: 0.2 }) });
    const dev = team.clone('dev');
    dev.branch('feature', { 'f.txt': 'f\n' });
    expect((await land(dev.dir, ['submit', 'feature'])).code).toBe(0);
    // Pushed around land (a server without the hook): a JSON parser would read OTHER as its holder.
    const blob = sh(team.bare, ['hash-object', '-w', '--stdin'], duplicateKeyLease());
    const tree = sh(team.bare, ['mktree'], `100644 blob ${blob}\tlease.json\n`);
    const junk = sh(team.bare, ['commit-tree', tree, '-m', 'not a lease land wrote']);
    team.server('update-ref', 'refs/land/lease', junk);

    const ci = team.clone('ci');
    const status = await land(ci.dir, ['status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json().queue).toEqual({ remote: 'origin', drainer: null });
    const first = await land(ci.dir, ['run', '--no-wait']);
    expect(first.code, first.stderr).toBe(6);
    expect(first.stderr).toContain('the queue on origin is drained by a drainer whose lease file is unreadable');
    expect(team.server('rev-parse', 'refs/land/lease')).toBe(junk);

    await new Promise((resolve) => setTimeout(resolve, 2_200)); // unmoved for the lease's time, by this clone's clock
    const later = await land(ci.dir, ['run', '--no-wait']);
    expect(later.code, later.stderr).toBe(0);
    expect(team.server('show', 'main:f.txt')).toBe('f');
    const taken = parseLeaseText(`${team.server('show', 'refs/land/lease:lease.json')}\n`);
    expect(taken).toMatchObject({ epoch: 1, released: true });
    expect(team.server('rev-list', '--first-parent', 'refs/land/lease').split('\n')).toContain(junk);
  }, 60_000);
});
