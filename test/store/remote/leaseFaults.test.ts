// The drain lease of a queue kept in a remote, end to end (2 of 2): a kill after the landing push,
// a holder paused past its lease (SIGSTOP), the heartbeat, --watch. Helpers: leaseKit.ts.
import { rmSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { killStrays } from '../../helpers/procs.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { waitUntil } from '../../helpers/wait.js';
import {
  leaseTeam,
  drainer,
  submit,
  serverLease,
  serverJob,
  cachedJob,
  SHORT,
  sleep,
  leaseEpochs,
  landedOnce,
  reconciled,
  summaryOf,
} from '../../helpers/leaseKit.js';

afterEach(killStrays);
afterAll(cleanupTempDirs);

describe('the drain lease of a remote queue', () => {
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
