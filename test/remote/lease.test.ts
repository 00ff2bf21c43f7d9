// The drain lease of a queue kept in a remote, end to end: several drainers on separate clones
// (separate hosts) at once, a holder killed (kill -9, mid-gate and around the landing's push), a
// holder paused past its lease (SIGSTOP), a holder alive through a gate longer than its lease, and
// `land run --watch` polling the remote. Real git (file://), the built CLI. The lease lasts 4 s
// (test/remote/setup.ts) where a live holder must keep it, 2 s where a dead or paused one is taken
// over (a takeover costs that much waiting).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FIXTURES, land, startLand } from '../helpers/cli.js';
import { killStrays, trackStray } from '../helpers/procs.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';
import { waitUntil } from '../helpers/wait.js';
import { makeTeam, queuePolicy, type Clone, type Team } from './setup.js';

afterEach(killStrays);
afterAll(cleanupTempDirs);

interface LeaseTeam {
  team: Team;
  /** The file whose existence keeps a gate of a drainer started with `hold` waiting. */
  hold: string;
  /** The gate runs so far: drainer name, gate pid, members. */
  gateRuns(): { drainer: string; pid: number; members: string[] }[];
}

/** A team whose gate notes each run and, in a drainer started with `hold`, waits while the hold file exists. */
function leaseTeam(queue: Record<string, unknown> = {}): LeaseTeam {
  const scratch = tempDir('land-lease-');
  const log = join(scratch, 'gate-runs.txt');
  const gate = { name: 'test', run: ['sh', join(FIXTURES, 'gates', 'lease-hold.sh')], timeoutSeconds: 60, env: { GATE_LOG: log } };
  const team = makeTeam({ policy: queuePolicy(queue, { gates: [gate], batch: { max: 8 } }) });
  const hold = join(scratch, 'hold');
  writeFileSync(hold, '');
  const gateRuns = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => {
            const [drainer, pid, ...members] = line.split(' ');
            trackStray(Number(pid));
            return { drainer: drainer as string, pid: Number(pid), members: members.flatMap((m) => m.split(',')).filter(Boolean) };
          })
      : [];
  return { team, hold, gateRuns };
}

/** `land run` in `clone`, named `name` in the gate log; with `hold`, its gates wait while the hold file exists. */
function drainer(clone: Clone, name: string, opts: { args?: string[]; hold?: string; failpoint?: string } = {}) {
  const run = startLand(clone.dir, ['run', ...(opts.args ?? [])], {
    env: { LAND_TEST_DRAINER: name, LAND_TEST_HOLD: opts.hold, LAND_FAILPOINT: opts.failpoint },
  });
  if (run.child.pid) trackStray(run.child.pid);
  return run;
}

/** Branches n1..nk from the server's main in `clone`, each adding its own file, submitted together; their ids. */
async function submit(clone: Clone, names: readonly string[]): Promise<string[]> {
  for (const name of names) clone.branch(name, { [`${name}.txt`]: `${name}\n` });
  const result = await land(clone.dir, ['submit', ...names, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return result.lines().map((line) => line.job.id as string);
}

/** lease.json as the server has it now. */
function serverLease(team: Team): { holder: string; pid: number; epoch: number; released: boolean } {
  return JSON.parse(team.server('show', 'refs/land/lease:lease.json'));
}

/**
 * The jobs each first-parent commit of the server's main since `base` landed: a train merge's
 * Land-Job trailer(s), or the job whose tip main was fast-forwarded to. Sorted.
 */
function landedOnServer(team: Team, base: string, tips: Map<string, string>): string[] {
  const log = team.server('log', '--first-parent', '--format=%H %(trailers:key=Land-Job,valueonly,separator=%x2C)', `${base}..main`);
  return log
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      const [sha, trailer] = line.split(' ');
      return trailer ? trailer.split(',') : [tips.get(sha as string) ?? `unexpected ${sha}`];
    })
    .sort();
}

interface Job {
  id: string;
  state: string;
  tip: string;
}

/** A job's record as the server has it (no CLI run: a git read of refs/land/jobs/<id>). */
function serverJob(team: Team, id: string): Job {
  return JSON.parse(team.server('show', `refs/land/jobs/${id}:record.json`));
}

/** A job's record in `clone`'s cache of the queue. */
function cachedJob(clone: Clone, id: string): Job {
  return JSON.parse(readFileSync(join(clone.dir, '.git', 'land', 'remote', 'origin', 'jobs', `${id}.json`), 'utf8'));
}

/** The shortest lease there is, for the tests where a holder dies or is paused. */
const SHORT = { leaseSeconds: 2 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The epochs of refs/land/lease's chain on the server, oldest first: each push on it had a lease on
 * the value before, so a drainer taken over never added a commit after its successor's.
 */
function leaseEpochs(team: Team): number[] {
  const subjects = team.server('log', '--first-parent', '--reverse', '--format=%s', 'refs/land/lease').split('\n');
  return subjects.map((subject) => Number(/ epoch (\d+) /.exec(subject)?.[1]));
}

/** Each job's record on the server says landed, and its merge is in the server's main exactly once; nothing else landed since `base`. */
function landedOnce(team: Team, base: string, ids: readonly string[]): void {
  const jobs = ids.map((id) => serverJob(team, id));
  for (const job of jobs) expect(job.state, job.id).toBe('landed');
  expect(landedOnServer(team, base, new Map(jobs.map((job) => [job.tip, job.id])))).toEqual([...ids].sort());
}

/** Records, journal and git agree in `clone`'s cache: nothing for reconcile to repair. */
async function reconciled(clone: Clone): Promise<void> {
  const check = await land(clone.dir, ['reconcile', '--check', '--json']);
  expect(check.code, check.stdout + check.stderr).toBe(0);
  expect(check.json()).toMatchObject({ disagreements: 0 });
}

/** The summary line of a `land run --json`. */
function summaryOf(stdout: string): { landed: string[]; contained: string[]; stopped: unknown } {
  const lines = stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
  return lines.find((line) => line.type === 'summary');
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
    process.kill(a.child.pid as number, 'SIGKILL');
    expect((await a.done).signal).toBe('SIGKILL');

    const ended = await b.done;
    expect(ended.code, ended.stderr).toBe(0);
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
    process.kill(a.child.pid as number, 'SIGKILL');
    await a.done;
    const first = await land(hostC.dir, ['run', '--no-wait']);
    expect(first.code, first.stderr).toBe(6);
    expect(first.stderr.split('\n')[0]).toMatch(/drained by drainer [0-9a-f]{8} \(pid \d+ on .*, lease epoch 1\)/);
    await new Promise((resolve) => setTimeout(resolve, 2_300)); // the lease (2 s) passes, by this clone's clock
    const second = await land(hostC.dir, ['run', '--no-wait', '--json']);
    expect(second.code, second.stderr).toBe(0);
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

  it('kill -9 after the landing push: the server has the target and the records; nobody lands the jobs again', async () => {
    const { team, gateRuns } = leaseTeam(SHORT);
    const dev = team.clone('dev');
    const base = team.server('rev-parse', 'main');
    const ids = await submit(dev, ['q1', 'q2']);
    const [hostA, hostB] = [team.clone('a'), team.clone('b')];
    const a = await drainer(hostA, 'a', { failpoint: 'after-landing-push' }).done;
    expect(a.signal, a.stderr).toBe('SIGKILL');
    expect(a.stderr).toContain('failpoint after-landing-push reached');
    const landedTip = team.server('rev-parse', 'main');
    expect(landedTip).not.toBe(base);
    landedOnce(team, base, ids);

    const b = await land(hostB.dir, ['run', '--json'], { env: { LAND_TEST_DRAINER: 'b' } });
    expect(b.code, b.stderr).toBe(0);
    expect(summaryOf(b.stdout)).toMatchObject({ landed: [], contained: [] });
    expect(team.server('rev-parse', 'main')).toBe(landedTip);
    expect(gateRuns().map((run) => run.drainer)).toEqual(['a']);
    await reconciled(hostB);

    const again = await land(hostA.dir, ['run', '--json'], { env: { LAND_TEST_DRAINER: 'a2' } });
    expect(again.code, again.stderr).toBe(0);
    expect(summaryOf(again.stdout)).toMatchObject({ landed: [], contained: [] });
    expect(team.server('rev-parse', 'main')).toBe(landedTip);
    for (const id of ids) expect(cachedJob(hostA, id).state).toBe('landed');
    await reconciled(hostA);
  });

  it('a drainer paused past its lease (SIGSTOP mid-gate) cannot land once resumed: exit 6, its push refused on the lease', async () => {
    const { team, hold, gateRuns } = leaseTeam(SHORT);
    const dev = team.clone('dev');
    const base = team.server('rev-parse', 'main');
    const ids = await submit(dev, ['s1', 's2']);
    const [hostA, hostB] = [team.clone('a'), team.clone('b')];
    const a = drainer(hostA, 'a', { hold });
    await waitUntil("a's gate to start", () => gateRuns().length === 1);
    process.kill(a.child.pid as number, 'SIGSTOP');
    try {
      const b = await land(hostB.dir, ['run', '--json'], { env: { LAND_TEST_DRAINER: 'b' } });
      expect(b.code, b.stderr).toBe(0);
      expect(summaryOf(b.stdout)).toMatchObject({ landed: [...ids].sort() });
    } finally {
      rmSync(hold, { force: true }); // a's gate passes: a would land on its stale base if the lease let it
      process.kill(a.child.pid as number, 'SIGCONT');
    }
    const landedTip = team.server('rev-parse', 'main');
    const ended = await a.done;
    expect(ended.code, ended.stderr).toBe(6);
    expect(ended.stderr).toMatch(/lost the queue lease on origin/);
    expect(team.server('rev-parse', 'main')).toBe(landedTip);
    expect(gateRuns().map((run) => run.drainer)).toEqual(['a', 'b']);
    landedOnce(team, base, ids);
    expect(serverLease(team)).toMatchObject({ epoch: 2, released: true });
    const epochs = leaseEpochs(team); // a's renewals (epoch 1), then b's (epoch 2) only: a pushed nothing once resumed
    expect(epochs).toEqual([...epochs].sort((x, y) => x - y));
    expect(epochs.filter((epoch) => epoch === 2).length).toBeGreaterThan(1);
  });

  it('a holder alive through a gate longer than its lease keeps it (heartbeat): a drainer started meanwhile still waits', async () => {
    const { team, hold, gateRuns } = leaseTeam();
    const dev = team.clone('dev');
    const base = team.server('rev-parse', 'main');
    const ids = await submit(dev, ['h1']);
    const [hostA, hostB] = [team.clone('a'), team.clone('b')];
    const a = drainer(hostA, 'a', { hold });
    await waitUntil("a's gate to start", () => gateRuns().length === 1);
    const b = drainer(hostB, 'b');
    await waitUntil('b to wait for the lease', () => /waiting/.test(b.output().stderr));
    const first = team.server('rev-parse', 'refs/land/lease');
    // Well past the lease (4 s) from when b started waiting: b must still wait, a still hold.
    const until = Date.now() + 6500;
    while (Date.now() < until) {
      expect(serverLease(team)).toMatchObject({ pid: a.child.pid, epoch: 1, released: false });
      expect(b.output().stderr).not.toMatch(/draining the queue/);
      await sleep(250);
    }
    expect(team.server('rev-parse', 'refs/land/lease')).not.toBe(first); // renewed meanwhile
    rmSync(hold);
    const [endA, endB] = await Promise.all([a.done, b.done]);
    expect(endA.code, endA.stderr).toBe(0);
    expect(endB.code, endB.stderr).toBe(0);
    expect(gateRuns().map((run) => run.drainer)).toEqual(['a']);
    landedOnce(team, base, ids);
  });

  it('land run --watch lands a job submitted from another clone, and SIGTERM releases its lease', async () => {
    const { team } = leaseTeam();
    const dev = team.clone('dev');
    const base = team.server('rev-parse', 'main');
    const ci = team.clone('ci');
    const watch = drainer(ci, 'ci', { args: ['--watch'] });
    await waitUntil('the watcher to take the lease', () => {
      try {
        return serverLease(team).pid === watch.child.pid;
      } catch {
        return false;
      }
    });
    const ids = await submit(dev, ['w1']);
    await waitUntil('the job to land on the server', () => serverJob(team, ids[0] as string).state === 'landed');
    // Idle again (a SIGTERM mid-train stops at the train's end with exit 130): a clean stop.
    await waitUntil('the watcher to be idle again', () => (watch.output().stderr.match(/queue empty; waiting for submissions/g) ?? []).length === 2);
    watch.child.kill('SIGTERM');
    const ended = await watch.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(serverLease(team)).toMatchObject({ pid: watch.child.pid, epoch: 1, released: true });
    landedOnce(team, base, ids);
    // Released: the next drainer takes it at once (--no-wait would exit 6 on a live lease).
    const next = await land(dev.dir, ['run', '--no-wait']);
    expect(next.code, next.stderr).toBe(0);
    expect(serverLease(team)).toMatchObject({ epoch: 2, released: true });
  });
});
