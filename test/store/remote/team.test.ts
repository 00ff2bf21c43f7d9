// A team around one remote, end to end (1 of 2): the same branch from two clones, an outside push
// and a cancel from a third clone while a train's gate runs, an unreachable remote, commands from a
// third clone. Helpers: teamKit.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { land, startLand, type CliResult } from '../../helpers/cli.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { waitForFile } from '../../helpers/wait.js';
import { makeTeam } from '../../helpers/remoteTeam.js';
import { afterAll, describe, expect, it } from 'vitest';
import { serverRefs, statusJobs, ok, blockingTeam, jsonLines } from '../../helpers/teamKit.js';

afterAll(cleanupTempDirs);

describe('a team around one remote queue', () => {
  it('is idempotent across clones; a new tip pushed from another clone replaces the queued job', async () => {
    const team = makeTeam();
    const alice = team.clone('alice');
    const bob = team.clone('bob');
    const tip = alice.branch('shared', { 'shared.txt': 'one\n' });
    alice.git('push', '-q', 'origin', 'shared');
    bob.git('fetch', '-q', 'origin');
    bob.git('branch', 'shared', 'origin/shared');
    // Both submit the same branch at the same tip at once: one job.
    const both = await Promise.all([land(alice.dir, ['submit', 'shared', '--json']), land(bob.dir, ['submit', 'shared', '--json'])]);
    const [first, second] = both.map((result) => ok(result).json());
    expect([first.outcome, second.outcome].sort()).toEqual(['created', 'existing']);
    expect(second.job).toMatchObject({ id: first.job.id, tip });
    const again = ok(await land(bob.dir, ['submit', 'shared', '--json'])).json();
    expect(again).toMatchObject({ outcome: 'existing', job: { id: first.job.id, tip } });

    // Bob moves the branch on and queues it again: the same job, the new tip.
    bob.git('checkout', '-q', 'shared');
    writeFileSync(join(bob.dir, 'shared.txt'), 'two\n');
    bob.git('commit', '-q', '-am', 'second take');
    const newTip = bob.tip('HEAD');
    bob.git('checkout', '-q', '--detach', 'origin/main');
    const updated = ok(await land(bob.dir, ['submit', 'shared', '--json'])).json();
    expect(updated).toMatchObject({ outcome: 'tip_updated', job: { id: first.job.id, tip: newTip } });
    expect(serverRefs(team).get(`refs/land/heads/${first.job.id}`)).toBe(newTip);

    const seen = await statusJobs(alice, false);
    expect(seen.map((job) => [job.id, job.tip])).toEqual([[first.job.id, newTip]]);
    expect([...serverRefs(team).keys()].filter((ref) => ref.startsWith('refs/land/jobs/'))).toEqual([`refs/land/jobs/${first.job.id}`]);
    // Alice's old tip is no longer what the queue lands.
    ok(await land(team.clone('ci').dir, ['run']));
    expect(team.server('show', 'main:shared.txt')).toBe('two');
  });

  it('rebuilds a train whose landing push lost to an outside push to main; the outside commit stays', async () => {
    const { team, files } = blockingTeam();
    const dev = team.clone('dev');
    const tip = dev.branch('feature', { 'feature.txt': 'feature\n' });
    const id = ok(await land(dev.dir, ['submit', 'feature', '--json'])).json().job.id as string;
    const ci = team.clone('ci');
    const drainer = startLand(ci.dir, ['run', '--json']);
    await waitForFile(files.started);

    // Someone pushes straight to main while the train's gate runs.
    const outsider = team.clone('outsider');
    const outside = outsider.branch('hotfix', { 'hotfix.txt': 'hotfix\n' });
    outsider.git('push', '-q', 'origin', `${outside}:refs/heads/main`);
    writeFileSync(files.go, '');

    const result = await drainer.done;
    expect(result.code, result.stderr).toBe(0);
    const events = jsonLines(result.stdout);
    const trains = events.filter((e) => e.type === 'train_built');
    expect(trains.length).toBe(2);
    expect(trains[1].base).toBe(outside);
    expect(events.some((e) => e.type === 'requeued' && e.jobs.includes(id))).toBe(true);
    // The first train never reached main; the rebuilt one did, on top of the outside commit.
    const main = team.server('rev-parse', 'main');
    expect(trains[0].commit).not.toBe(main);
    expect(trains[0].base).not.toBe(outside);
    expect(events.find((e) => e.type === 'landed')).toMatchObject({ commit: main, members: [id] });
    expect(team.server('rev-parse', `${main}^1`)).toBe(outside);
    expect(team.server('merge-base', '--is-ancestor', tip, main)).toBe('');
    expect(team.server('show', 'main:hotfix.txt')).toBe('hotfix');
    const seen = await statusJobs(dev);
    expect(seen.find((job) => job.id === id)?.state).toBe('landed');
  });

  it('honours a cancel from a third clone at the train boundary; the other member lands', async () => {
    const { team, files } = blockingTeam();
    const dev = team.clone('dev');
    dev.branch('keep', { 'keep.txt': 'keep\n' });
    const dropTip = dev.branch('drop', { 'drop.txt': 'drop\n' });
    const [keep, drop] = ok(await land(dev.dir, ['submit', 'keep', 'drop', '--json']))
      .lines()
      .map((line) => line.job.id as string);
    const ci = team.clone('ci');
    const drainer = startLand(ci.dir, ['run', '--json']);
    await waitForFile(files.started);

    const third = team.clone('third');
    // A riding job is `queued` on the remote until its train's one push (docs/remote.md): the
    // cancel changes the remote record at once, and the landing push then fails on that record.
    const cancel = ok(await land(third.dir, ['cancel', drop as string, '--json'])).json();
    expect(cancel).toMatchObject({ outcome: 'canceled', job: { id: drop, state: 'canceled' } });
    writeFileSync(files.go, '');

    const result = await drainer.done;
    expect(result.code, result.stderr).toBe(0);
    const events = jsonLines(result.stdout);
    const trains = events.filter((e) => e.type === 'train_built');
    expect(trains.map((e) => e.members)).toEqual([[keep, drop], [keep]]);
    const seen = await statusJobs(third);
    expect(seen.map((job) => [job.id, job.state]).sort()).toEqual([
      [keep, 'landed'],
      [drop, 'canceled'],
    ]);
    const main = team.server('rev-parse', 'main');
    expect(() => team.server('merge-base', '--is-ancestor', dropTip, main)).toThrow();
    expect(team.server('show', 'main:keep.txt')).toBe('keep');
    expect(events.filter((e) => e.type === 'landed').flatMap((e) => e.members)).toEqual([keep]);
  });

  it('exits 13 naming the remote when it cannot be reached, and queues nothing', async () => {
    const team = makeTeam();
    const dev = team.clone('dev');
    dev.branch('feature', { 'feature.txt': 'feature\n' });
    const missing = `${team.bare}.gone`;
    const expectRemoteError = (result: CliResult) => {
      expect(result.code, result.stderr).toBe(13);
      expect(result.stdout).toBe('');
      const lines = result.stderr.split('\n').filter((line) => line.startsWith('land: '));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/remote origin could not be reached/);
    };

    // The whole remote gone: fetch fails.
    dev.git('remote', 'set-url', 'origin', `file://${missing}`);
    expectRemoteError(await land(dev.dir, ['submit', 'feature', '--json']));
    expectRemoteError(await land(dev.dir, ['status', '--json']));
    expectRemoteError(await land(dev.dir, ['status']));

    // Fetch works, the push does not: the cache must not keep a job the remote never took.
    dev.git('remote', 'set-url', 'origin', `file://${team.bare}`);
    dev.git('remote', 'set-url', '--push', 'origin', `file://${missing}`);
    expectRemoteError(await land(dev.dir, ['submit', 'feature', '--json']));
    expect(serverRefs(team).size).toBe(0);
    dev.git('config', '--unset', 'remote.origin.pushurl');
    expect(await statusJobs(dev)).toEqual([]);
    expect(await statusJobs(team.clone('other'))).toEqual([]);
    // Once the remote is back, the same submission creates the first job.
    const created = ok(await land(dev.dir, ['submit', 'feature', '--json'])).json();
    expect(created.outcome).toBe('created');
    expect(created.job.id).toMatch(/-0001$/);
  });

  it('cancel, retry, show and why work from a clone that neither submitted nor drained', async () => {
    const team = makeTeam();
    const dev = team.clone('dev');
    dev.branch('broken', { broken: 'the gate fails on this file\n' });
    dev.branch('later', { 'later.txt': 'later\n' });
    const failing = ok(await land(dev.dir, ['submit', 'broken', '--json'])).json().job.id as string;
    ok(await land(team.clone('ci').dir, ['run']));
    const later = ok(await land(dev.dir, ['submit', 'later', '--json'])).json().job.id as string;

    const third = team.clone('third');
    const shown = ok(await land(third.dir, ['show', failing, '--json'])).json();
    expect(shown).toMatchObject({ id: failing, state: 'failed', branch: 'broken' });
    const why = ok(await land(third.dir, ['why', failing, '--json'])).json();
    expect(why.job).toMatchObject({ id: failing, state: 'failed' });
    expect(why.events.map((e: { kind: string }) => e.kind)).toContain('submitted');
    const whyText = ok(await land(third.dir, ['why', failing]));
    expect(whyText.stdout).toContain(failing);

    const retried = ok(await land(third.dir, ['retry', failing, '--json'])).lines();
    expect(retried).toMatchObject([{ outcome: 'requeued', job: { id: failing, state: 'queued' }, previous: { state: 'failed' } }]);
    const canceled = ok(await land(third.dir, ['cancel', later, '--json'])).json();
    expect(canceled).toMatchObject({ outcome: 'canceled', job: { id: later, state: 'canceled' } });

    // The submitter's clone and the server agree.
    const seen = await statusJobs(dev);
    expect(seen.map((job) => [job.id, job.state]).sort()).toEqual([
      [failing, 'queued'],
      [later, 'canceled'],
    ]);
    expect(team.server('show', `refs/land/jobs/${later}:record.json`)).toContain('"state": "canceled"');
    expect(team.server('log', '-1', '--format=%s', `refs/land/jobs/${failing}`)).toMatch(new RegExp(`^land: ${failing} failed -> queued`));
  });
});
