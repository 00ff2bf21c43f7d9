// The drain lease of a queue kept in a remote, end to end (1 of 2): two drainers at once, a holder
// killed mid-gate or around the landing push, --no-wait from cron. Helpers: leaseKit.ts.
import { realpathSync, rmSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { gitsRunningIn, killStrays } from '../../helpers/procs.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { waitUntil } from '../../helpers/wait.js';
import {
  leaseTeam,
  drainer,
  submit,
  serverLease,
  type Job,
  serverJob,
  cachedJob,
  SHORT,
  leaseEpochs,
  landedOnce,
  reconciled,
  summaryOf,
} from '../../helpers/leaseKit.js';

afterEach(killStrays);
afterAll(cleanupTempDirs);

/** What a drainer says when it took over the lease of the dead holder `dead` (lib/store/remoteLease.ts, takeoverText). */
function takeoverLine(dead: { holder: string; pid: number }): RegExp {
  const from = `drainer ${dead.holder.slice(0, 8)} \\(pid ${dead.pid} on [^,]+, lease epoch 1\\)`;
  return new RegExp(
    `^took over the queue lease on origin from ${from}, silent since \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ \\(\\d+ s by this host's clock\\)$`,
  );
}

/** The messages of the warning events of `land run --json`. */
function warningsOf(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{"type":"warning"'))
    .map((line) => JSON.parse(line).message as string);
}

describe('the drain lease of a remote queue', () => {
  it('two drainers on two clones at once: one drains, the other waits and says for whom; --no-wait exits 6 naming the holder', async () => {
    const { team, hold, gateRuns } = leaseTeam();
    const dev = team.clone('dev');
    const base = team.server('rev-parse', 'main');
    const ids = await submit(dev, ['a1', 'a2']);
    const [one, two] = [team.clone('one'), team.clone('two')];
    const runs = [drainer(one, 'one', { hold }), drainer(two, 'two', { hold })];
    await waitUntil('a gate to start', () => gateRuns().length === 1);
    const winner = gateRuns()[0]?.drainer === 'one' ? 0 : 1;
    const waiter = runs[1 - winner] as (typeof runs)[number];
    await waitUntil('the other drainer to say it waits', () => /waiting/.test(waiter.output().stderr));
    const lease = serverLease(team);
    expect(lease).toMatchObject({ pid: runs[winner]?.child.pid, epoch: 1, released: false });
    expect(waiter.output().stderr).toContain(`waiting for the queue lease on origin held by pid ${lease.pid} on `);

    const third = await land(dev.dir, ['run', '--no-wait']); // a third host
    expect(third.code, third.stderr).toBe(6);
    const [first] = third.stderr.split('\n');
    expect(first).toMatch(
      new RegExp(`^land: the queue on origin is drained by drainer ${lease.holder.slice(0, 8)} \\(pid ${lease.pid} on .+, lease epoch 1\\)$`),
    );

    rmSync(hold);
    const ended = await Promise.all(runs.map((run) => run.done));
    for (const end of ended) expect(end.code, end.stderr).toBe(0);
    expect(waiter.output().stdout + waiter.output().stderr).not.toContain('took over'); // a released lease is no takeover
    expect(gateRuns().map((run) => run.drainer)).toEqual([winner === 0 ? 'one' : 'two']);
    landedOnce(team, base, ids);
    expect(serverLease(team)).toMatchObject({ epoch: 2, released: true }); // the waiter took it once it was free
  });

  it('kill -9 of the holder mid-gate: the waiting drainer takes over after the lease, lands every job once, records agree', async () => {
    const { team, hold, gateRuns } = leaseTeam(SHORT);
    const dev = team.clone('dev');
    const base = team.server('rev-parse', 'main');
    const ids = await submit(dev, ['k1', 'k2']);
    const [hostA, hostB] = [team.clone('a'), team.clone('b')];
    const a = drainer(hostA, 'a', { hold });
    await waitUntil("a's gate to start", () => gateRuns().length === 1);
    const b = drainer(hostB, 'b', { args: ['--json'] });
    await waitUntil('b to wait for the lease', () => /waiting for the queue lease on origin/.test(b.output().stdout));
    const dead = serverLease(team);
    process.kill(a.child.pid as number, 'SIGKILL');
    expect((await a.done).signal).toBe('SIGKILL');

    const ended = await b.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(warningsOf(ended.stdout)).toContainEqual(expect.stringMatching(takeoverLine(dead)));
    expect(summaryOf(ended.stdout)).toMatchObject({ landed: [...ids].sort(), stopped: null });
    expect(gateRuns().map((run) => run.drainer)).toEqual(['a', 'b']);
    expect(gateRuns()[1]?.members.sort()).toEqual([...ids].sort());
    landedOnce(team, base, ids);
    expect(serverLease(team)).toMatchObject({ epoch: 2, pid: b.child.pid, released: true });
    const epochs = leaseEpochs(team);
    expect(epochs).toEqual([...epochs].sort((x, y) => x - y));
    await reconciled(hostB);
  });

  it('land run --no-wait from cron after a holder died: exit 6 at first sight of its lease, takes it over once this clone has seen it unmoved for the lease', async () => {
    const { team, hold, gateRuns } = leaseTeam(SHORT);
    const dev = team.clone('dev');
    const base = team.server('rev-parse', 'main');
    const ids = await submit(dev, ['c1']);
    const [hostA, hostC] = [team.clone('a'), team.clone('c')];
    const a = drainer(hostA, 'a', { hold });
    await waitUntil("a's gate to start", () => gateRuns().length === 1);
    const dead = serverLease(team);
    process.kill(a.child.pid as number, 'SIGKILL');
    await a.done;
    // A renewal the holder pushed just before it died still lands after the kill: the cron job's
    // first sight is of the lease as the dead holder left it.
    await waitUntil("the dead holder's last git process to end", () => gitsRunningIn(realpathSync(hostA.dir)).length === 0);
    const first = await land(hostC.dir, ['run', '--no-wait']);
    expect(first.code, first.stderr).toBe(6);
    expect(first.stderr.split('\n')[0]).toMatch(/drained by drainer [0-9a-f]{8} \(pid \d+ on .*, lease epoch 1\)/);
    await new Promise((resolve) => setTimeout(resolve, 2_300)); // the lease (2 s) passes, by this clone's clock
    const second = await land(hostC.dir, ['run', '--no-wait', '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(warningsOf(second.stdout)).toContainEqual(expect.stringMatching(takeoverLine(dead)));
    expect(summaryOf(second.stdout)).toMatchObject({ landed: ids });
    landedOnce(team, base, ids);
    expect(serverLease(team)).toMatchObject({ epoch: 2, released: true });
  });

  it("kill -9 before the landing push: nothing moved on the server; the next drainer lands the jobs, and the dead one's clone agrees", async () => {
    const { team, gateRuns } = leaseTeam(SHORT);
    const dev = team.clone('dev');
    const base = team.server('rev-parse', 'main');
    const ids = await submit(dev, ['p1', 'p2']);
    const [hostA, hostB] = [team.clone('a'), team.clone('b')];
    const a = await drainer(hostA, 'a', { failpoint: 'before-landing-push' }).done;
    expect(a.signal, a.stderr).toBe('SIGKILL');
    expect(a.stderr).toContain('failpoint before-landing-push reached');
    expect(team.server('rev-parse', 'main')).toBe(base);
    for (const id of ids) expect(serverJob(team, id).state).toBe('queued'); // a riding job's changes stay in its drainer's cache
    // The dead drainer's cache claims nothing the remote did not take: the landing it wrote there
    // before the push is taken back (its train is in_progress again, as the cache had it).
    const seen = await land(hostA.dir, ['status', '--json']);
    expect(seen.code, seen.stderr).toBe(0);
    expect(seen.json().jobs.map((job: Job) => [job.id, job.state])).toEqual(ids.map((id) => [id, 'in_progress']));

    const b = await land(hostB.dir, ['run', '--json'], { env: { LAND_TEST_DRAINER: 'b' } });
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toMatch(/waiting for the queue lease on origin/); // the dead holder's lease, until it expired
    expect(summaryOf(b.stdout)).toMatchObject({ landed: [...ids].sort() });
    expect(gateRuns().map((run) => run.drainer)).toEqual(['a', 'b']);
    landedOnce(team, base, ids);
    await reconciled(hostB);

    // The dead drainer's clone still has its train in its cache: the remote's records win.
    const again = await land(hostA.dir, ['run', '--json'], { env: { LAND_TEST_DRAINER: 'a2' } });
    expect(again.code, again.stderr).toBe(0);
    expect(summaryOf(again.stdout)).toMatchObject({ landed: [] });
    expect(gateRuns()).toHaveLength(2);
    for (const id of ids) expect(cachedJob(hostA, id).state).toBe('landed');
    await reconciled(hostA);
  });
});
