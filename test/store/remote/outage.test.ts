// `land run --watch` on a queue kept in a remote, through an outage of the remote (the server's
// bare repository moved away, then put back): an outage shorter than queue.leaseSeconds is ridden
// out (said once when it starts and once when it ends) and the drainer lands what is submitted
// afterwards; one that outlasts leaseSeconds ends the drain with exit 13, as before. Real git
// (file://), the built CLI. What must survive: the drainer, its lease (same epoch), the job.
import { renameSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killStrays } from '../../helpers/procs.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { waitUntil } from '../../helpers/wait.js';
import { drainer, landedOnce, leaseTeam, serverJob, serverLease, sleep, submit } from '../../helpers/leaseKit.js';
import { makeTeam, queuePolicy, type Team } from '../../helpers/remoteTeam.js';

afterEach(killStrays);
afterAll(cleanupTempDirs);

const QUEUE = { leaseSeconds: 6, pollSeconds: 0.2 };
const UNREACHABLE = /^land: the queue's remote origin is unreachable; retrying for up to 6 s/m;

/** A --watch drainer in a fresh clone of `team`, holding the lease and idle. */
async function idleWatcher(team: Team) {
  const watch = drainer(team.clone('ci'), 'ci', { args: ['--watch'] });
  await waitUntil('the watcher to take the lease and be idle', () => {
    try {
      return serverLease(team).pid === watch.child.pid && /waiting for submissions/.test(watch.output().stderr);
    } catch {
      return false;
    }
  });
  return watch;
}

/** Moves the server's repository away (the remote is unreachable) until the returned function puts it back. */
function outage(team: Team): () => void {
  const away = `${team.bare}.away`;
  renameSync(team.bare, away);
  return () => renameSync(away, team.bare);
}

describe('land run --watch through an outage of the queue remote', () => {
  it('rides out an outage shorter than leaseSeconds between trains (says so once, and once when it is back), then lands what was and is submitted', async () => {
    // A lone job waits 3 s for company, reading the queue every 0.5 s: the outage comes then.
    const team = makeTeam({ policy: queuePolicy(QUEUE, { batch: { max: 8, waitSeconds: 3 } }) });
    const base = team.server('rev-parse', 'main');
    const watch = await idleWatcher(team);
    const dev = team.clone('dev');
    const [before] = await submit(dev, ['before-outage']);
    await waitUntil('the lone job to wait for company', () => /waits up to 3s for company/.test(watch.output().stderr));
    const putBack = outage(team);
    await waitUntil('the watcher to notice the outage (or end)', () => UNREACHABLE.test(watch.output().stderr) || watch.child.exitCode !== null, 5_000);
    await sleep(1_500);
    putBack();
    expect(watch.child.exitCode, watch.output().stderr).toBeNull();
    await waitUntil('the watcher to say the remote is back', () => /reachable again/.test(watch.output().stderr), 10_000);
    expect(watch.child.exitCode).toBeNull();

    const [after] = await submit(dev, ['after-outage']);
    const ids = [before, after] as string[];
    await waitUntil('both jobs to land on the server', () => ids.every((id) => serverJob(team, id).state === 'landed'), 30_000);
    landedOnce(team, base, ids);
    expect(serverLease(team)).toMatchObject({ pid: watch.child.pid, epoch: 1 });
    const stderr = watch.output().stderr;
    expect(stderr.match(new RegExp(UNREACHABLE.source, 'gm'))).toHaveLength(1);
    expect(stderr.match(/reachable again/g)).toHaveLength(1);
    // Idle again (a SIGTERM mid-train stops at the train's end with exit 130): a clean stop.
    await waitUntil('the watcher to be idle again', () => /waiting for submissions[^\n]*\n$/.test(watch.output().stderr));
    watch.child.kill('SIGTERM');
    expect((await watch.done).code).toBe(0);
  }, 60_000);

  it('exits 13 when the outage lasts past leaseSeconds', async () => {
    const { team } = leaseTeam(QUEUE);
    const watch = await idleWatcher(team);
    const putBack = outage(team);
    const ended = await watch.done;
    putBack();
    expect(ended.code, ended.stderr).toBe(13);
    expect(ended.stderr).toMatch(UNREACHABLE);
    expect(ended.stderr).toMatch(/^land: the queue's remote origin could not be reached/m);
  }, 60_000);
});
