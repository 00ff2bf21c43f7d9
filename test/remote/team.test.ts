// A team around one remote, end to end: developer clones submitting at once, the same branch from
// two clones, a fresh CI clone draining, an outside push to main and a cancel from a third clone
// while a train's gate runs. Real git (file://), the built CLI, separate clones for separate hosts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, land, startLand, type CliResult } from '../helpers/cli.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';
import { waitForFile } from '../helpers/wait.js';
import { makeTeam, queuePolicy, type Clone, type Team } from './setup.js';

afterAll(cleanupTempDirs);

interface Job {
  id: string;
  branch: string;
  tip: string;
  state: string;
  reason?: string | null;
}

/** The server's refs under refs/land/ and the commit each names. */
function serverRefs(team: Team): Map<string, string> {
  const out = team.server('for-each-ref', '--format=%(objectname) %(refname)', 'refs/land/');
  return new Map(
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [oid, ref] = line.split(' ');
        return [ref as string, oid as string];
      }),
  );
}

async function statusJobs(clone: Clone, all = true): Promise<Job[]> {
  const status = await land(clone.dir, ['status', ...(all ? ['--all'] : []), '--json']);
  expect(status.code, status.stderr).toBe(0);
  return status.json().jobs as Job[];
}

function ok(result: CliResult): CliResult {
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/** A team whose gate waits for a file the test creates (fixtures/gates/wait-for-go.sh). */
function blockingTeam() {
  const scratch = tempDir('land-team-gate-');
  const files = { started: join(scratch, 'started'), go: join(scratch, 'go'), counter: join(scratch, 'runs.txt') };
  const gate = {
    name: 'test',
    run: ['sh', join(FIXTURES, 'gates', 'wait-for-go.sh')],
    timeoutSeconds: 60,
    env: { GATE_STARTED: files.started, GATE_GO: files.go, GATE_COUNTER: files.counter },
  };
  return { team: makeTeam({ policy: queuePolicy({}, { gates: [gate], batch: { max: 8 } }) }), files };
}

describe('a team around one remote queue', () => {
  it('takes 40 submissions from two clones at once in server order; a fresh clone lands them all', async () => {
    const team = makeTeam({ policy: queuePolicy({}, { batch: { max: 40 } }) });
    const devs = [team.clone('alice'), team.clone('bob')];
    const branches = devs.map((dev, d) =>
      Array.from({ length: 20 }, (_, i) => {
        const name = `${d === 0 ? 'a' : 'b'}${i + 1}`;
        return { dev, name, tip: dev.branch(name, { [`${name}.txt`]: `${name}\n` }) };
      }),
    );
    const all = branches.flat();
    // All 40 `land submit` processes are started before any is awaited.
    const runs = all.map((b) => startLand(b.dev.dir, ['submit', b.name, '--json']));
    const results = await Promise.all(runs.map((run) => run.done));
    const jobs = results.map((result, i) => {
      expect(result.code, `${all[i]?.name}: ${result.stderr}`).toBe(0);
      const parsed = JSON.parse(result.stdout);
      expect(parsed.outcome).toBe('created');
      return parsed.job as Job;
    });
    const ids = jobs.map((job) => job.id).sort();
    const day = ids[0]?.split('-')[1];
    expect(ids).toEqual(Array.from({ length: 40 }, (_, i) => `j-${day}-${String(i + 1).padStart(4, '0')}`));
    expect(new Set(jobs.map((job) => job.branch)).size).toBe(40);
    for (const [i, job] of jobs.entries()) expect(job.tip).toBe(all[i]?.tip);

    // Queue order is id order, the same from either clone and from one that submitted nothing.
    const watcher = team.clone('watcher');
    for (const clone of [devs[1] as Clone, watcher]) {
      const queued = await statusJobs(clone, false);
      expect(queued.map((job) => job.id)).toEqual(ids);
    }
    const refs = serverRefs(team);
    for (const job of jobs) {
      expect(refs.has(`refs/land/jobs/${job.id}`), job.id).toBe(true);
      expect(refs.get(`refs/land/heads/${job.id}`)).toBe(job.tip);
    }
    // The server took the creations one at a time, in id order: the seq chain names each id once.
    const seq = team.server('log', '--first-parent', '--reverse', '--format=%s', 'refs/land/seq').split('\n');
    expect(seq).toEqual(ids.map((id) => `land: seq ${id}`));

    // A CI runner: a fresh clone drains the whole queue.
    const before = team.server('rev-parse', 'main');
    const ci = team.clone('ci');
    const run = ok(await land(ci.dir, ['run', '--json'], { timeoutMs: 100_000 }));
    const landedEvents = run.lines().filter((e) => e.type === 'landed');
    expect(landedEvents.flatMap((e) => e.members).sort()).toEqual(ids);
    const main = team.server('rev-parse', 'main');
    expect(landedEvents.at(-1).commit).toBe(main);
    // main's first-parent history since the drain began is exactly one merge per job, each
    // bringing in that job's tip (or the tip itself for a fast-forward), and ends at each landing.
    const firstParents = team.server('log', '--first-parent', '--format=%H %P', `${before}..${main}`).split('\n').reverse();
    const brought = firstParents.map((line) => {
      const [commit, , second] = line.split(' ');
      return second ?? commit;
    });
    expect(brought.sort()).toEqual(jobs.map((job) => job.tip).sort());
    const heads = firstParents.map((line) => line.split(' ')[0]);
    for (const event of landedEvents) expect(heads).toContain(event.commit);
    for (const job of jobs) expect(team.server('merge-base', '--is-ancestor', job.tip, main)).toBe('');
    // Nothing but the jobs' files came in.
    const files = team.server('diff', '--name-only', before, main).split('\n').sort();
    expect(files).toEqual(all.map((b) => `${b.name}.txt`).sort());

    const seen = await statusJobs(devs[0] as Clone);
    expect(seen.map((job) => [job.id, job.state]).sort()).toEqual(ids.map((id) => [id, 'landed']));
    ok(await land(ci.dir, ['reconcile', '--check', '--json']));
  }, 300_000);

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
    const events = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
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
    const events = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
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
