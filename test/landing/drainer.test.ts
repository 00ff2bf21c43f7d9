import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land, startLand } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo, sh, tempDir } from '../helpers/repo.js';
import { jobsById, landedOrder, makeQueueRepo, submitBranches } from '../helpers/queue.js';
import { waitForFile, waitUntil } from '../helpers/wait.js';

afterAll(cleanupTempDirs);

function slowRepo() {
  const scratch = tempDir('land-slow-');
  const started = join(scratch, 'started');
  const go = join(scratch, 'go');
  const repo = makeQueueRepo({ gate: { script: 'wait-for-go.sh', env: { GATE_STARTED: started, GATE_GO: go } } });
  return { repo, started, go };
}

describe('the drainer', () => {
  it("lands on the target named with --target, under that branch's policy", async () => {
    const repo = makeQueueRepo();
    const policy = JSON.parse(repo.git('show', 'main:.ctm.json'));
    repo.git('checkout', '-q', '-b', 'release');
    repo.policy({ ...policy, target: 'release' });
    repo.git('checkout', '-q', 'main');
    const mainBefore = repo.tip('main');
    repo.branch('fix', { 'fix.txt': 'fix\n' }, 'release');
    expect((await land(repo.dir, ['--target', 'release', 'submit', 'fix'])).code).toBe(0);
    const run = await land(repo.dir, ['--target', 'release', 'run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines()[0]).toMatchObject({ type: 'drain_started', target: 'release' });
    expect(repo.tip('main')).toBe(mainBefore);
    expect(repo.git('ls-tree', '--name-only', 'release')).toContain('fix.txt');
    // A job queued for release never rides a train of main's drainer.
    repo.branch('fix2', { 'fix2.txt': 'fix2\n' }, 'release');
    const [id] = (await land(repo.dir, ['--target', 'release', 'submit', 'fix2', '--json'])).lines().map((l) => l.job.id);
    expect((await land(repo.dir, ['run'])).code).toBe(0);
    expect((await jobsById(repo)).get(id as string)).toMatchObject({ state: 'queued', target: 'release' });
    expect(repo.tip('main')).toBe(mainBefore);
  });

  it('stops waiting for the drain lock on a signal', async () => {
    const { repo, started, go } = slowRepo();
    await submitBranches(repo, 1);
    const first = startLand(repo.dir, ['run']);
    await waitForFile(started);
    const second = startLand(repo.dir, ['run']);
    await waitUntil('the second drainer to wait', () => second.output().stderr.includes('waiting for the drain lock'));
    second.child.kill('SIGINT');
    const stopped = await second.done;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/while waiting for the drain lock/);
    writeFileSync(go, '');
    expect((await first.done).code).toBe(0);
  });

  it('lets one drainer run at a time: --no-wait exits 6 naming the holder', async () => {
    const { repo, started, go } = slowRepo();
    await submitBranches(repo, 1);
    const first = startLand(repo.dir, ['run']);
    await waitForFile(started);
    const second = await land(repo.dir, ['run', '--no-wait']);
    expect(second.code).toBe(6);
    expect(second.stderr).toMatch(new RegExp(`another drainer holds the queue: pid ${first.child.pid}`));
    writeFileSync(go, '');
    expect((await first.done).code).toBe(0);
  });

  it('submit --wait exits 0 when the job lands and 9 when it fails', async () => {
    const repo = makeQueueRepo();
    repo.branch('good', { 'good.txt': 'ok\n' });
    repo.branch('bad', { 'culprit-x': 'bad\n' });
    const waitingGood = startLand(repo.dir, ['submit', 'good', '--wait']);
    await waitUntil('good to be queued', async () => (await land(repo.dir, ['status', '--json'])).json().jobs.length === 1);
    expect((await land(repo.dir, ['run'])).code).toBe(0);
    expect((await waitingGood.done).code).toBe(0);

    const waitingBad = startLand(repo.dir, ['submit', 'bad', '--wait']);
    await waitUntil('bad to be queued', async () => (await land(repo.dir, ['status', '--json'])).json().jobs.length === 1);
    expect((await land(repo.dir, ['run'])).code).toBe(0);
    const bad = await waitingBad.done;
    expect(bad.code).toBe(9);
    expect(bad.stderr).toMatch(/ended failed: gate/);
  });

  it('first SIGINT finishes the train; a second one kills the gate and requeues its members', async () => {
    const { repo, started, go } = slowRepo();
    const ids = await submitBranches(repo, 2);
    const drainer = startLand(repo.dir, ['run', '--json']);
    await waitForFile(started);
    // A cancel asked during the gate must survive the interrupted run's requeue.
    expect((await land(repo.dir, ['cancel', ids[0] as string])).code).toBe(0);
    drainer.child.kill('SIGINT');
    await waitUntil('the stopping event', () => drainer.output().stdout.includes('"stopping"'));
    drainer.child.kill('SIGINT');
    const result = await drainer.done;
    expect(result.code).toBe(130);
    const jobs = await jobsById(repo);
    for (const id of ids) expect(jobs.get(id).state).toBe('queued');
    expect(jobs.get(ids[0] as string).stopRequest).toMatchObject({ kind: 'cancel' });
    // The state is written: a later drain cancels the one and lands the other.
    writeFileSync(go, '');
    expect((await land(repo.dir, ['run'])).code).toBe(0);
    const after = await jobsById(repo);
    expect(after.get(ids[0] as string).state).toBe('canceled');
    expect(after.get(ids[1] as string).state).toBe('landed');
    // A lone member lands as a fast-forward: its tip is main's tip, and the canceled tip is not in main.
    expect(repo.tip('main')).toBe(after.get(ids[1] as string).tip);
    expect(() => repo.git('merge-base', '--is-ancestor', after.get(ids[0] as string).tip, 'main')).toThrow();
  });

  it('an urgent submit preempts a running train of normal jobs at the boundary and lands first', async () => {
    const { repo, started, go } = slowRepo();
    const normal = await submitBranches(repo, 2);
    const drainer = startLand(repo.dir, ['run', '--json']);
    await waitForFile(started);
    repo.branch('hotfix', { 'hotfix.txt': 'fix\n' });
    const urgent = await land(repo.dir, ['submit', 'hotfix', '--urgent', '--json']);
    expect(urgent.code, urgent.stderr).toBe(0);
    const urgentId = urgent.json().job.id as string;
    const stopped = await jobsById(repo);
    for (const id of normal) expect(stopped.get(id).stopRequest).toMatchObject({ kind: 'preempt', forJob: urgentId });
    writeFileSync(go, '');
    const result = await drainer.done;
    expect(result.code, result.stderr).toBe(0);
    // The preempted run was void: the hotfix is the first landing, the normal jobs follow.
    expect(landedOrder(repo)[0]).toBe(urgentId);
    const jobs = await jobsById(repo);
    for (const id of [urgentId, ...normal]) expect(jobs.get(id).state).toBe('landed');
    const events = result.stdout
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
    expect(events.some((e) => e.type === 'requeued' && e.reason === 'preempted')).toBe(true);
  });

  it('recovers after kill -9 during a gate: nothing stuck in_progress, nothing landed twice', async () => {
    const { repo, started, go } = slowRepo();
    const ids = await submitBranches(repo, 3);
    const drainer = startLand(repo.dir, ['run']);
    await waitForFile(started);
    drainer.child.kill('SIGKILL');
    await drainer.done;
    expect([...(await jobsById(repo)).values()].filter((j) => j.state === 'in_progress')).toHaveLength(3);
    // A cancel asked while nobody drains is kept and honoured by the recovery.
    expect((await land(repo.dir, ['cancel', ids[1] as string, '--json'])).json().outcome).toBe('stop_requested');
    writeFileSync(go, '');
    const again = await land(repo.dir, ['run', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.lines().filter((e) => e.type === 'recovered')).toHaveLength(2);
    expect(again.lines().find((e) => e.type === 'canceled')).toMatchObject({ job: ids[1] });
    const jobs = await jobsById(repo);
    expect(jobs.get(ids[1] as string).state).toBe('canceled');
    for (const id of [ids[0], ids[2]] as string[]) expect(jobs.get(id).state).toBe('landed');
    expect(landedOrder(repo)).toEqual([ids[0], ids[2]]);
  });

  it('stops before any gate runs over a dirty checked-out target (target_dirty), then lands once it is clean', async () => {
    const repo = makeQueueRepo();
    const ids = await submitBranches(repo, 1);
    repo.write('README.md', 'uncommitted edit\n');
    const before = repo.tip('main');
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code).toBe(5);
    expect(run.lines().at(-1).stopped).toMatchObject({
      why: 'target_dirty',
      message: expect.stringContaining(`main is checked out with uncommitted changes at ${repo.dir}; nothing was gated`),
    });
    expect(repo.gateRuns()).toBe(0); // found before gating: the counting gate never started
    expect(run.lines().some((e) => e.type === 'train_built')).toBe(false);
    expect(repo.tip('main')).toBe(before);
    expect((await jobsById(repo)).get(ids[0] as string).state).toBe('queued');
    repo.git('checkout', '--', 'README.md');
    expect((await land(repo.dir, ['run'])).code).toBe(0);
    expect((await jobsById(repo)).get(ids[0] as string).state).toBe('landed');
    // The checkout followed the landing: its files are the new tip's.
    expect(repo.git('status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(repo.git('ls-files')).toContain('file-b1.txt');
  });
});

describe('publish.auto', () => {
  it('pushes once per train to the remote with a lease, and reports a rejected push without forcing', async () => {
    const remote = tempDir('land-remote-');
    sh(remote, ['init', '-q', '--bare', '-b', 'main']);
    const repo = makeQueueRepo({ policy: { publish: { auto: true } } });
    repo.git('remote', 'add', 'origin', remote);
    repo.git('push', '-q', 'origin', 'main');
    await submitBranches(repo, 2);
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines().filter((e) => e.type === 'published')).toHaveLength(1);
    expect(sh(remote, ['rev-parse', 'main'])).toBe(repo.tip('main'));

    // Someone pushes to the remote directly: the next landing's push is rejected, never forced.
    const other = makeRepo();
    other.git('fetch', '-q', remote, 'main');
    other.git('reset', '-q', '--hard', 'FETCH_HEAD');
    other.commit('pushed around the queue', { 'around.txt': 'x\n' });
    other.git('push', '-q', remote, 'HEAD:main');
    const theirs = sh(remote, ['rev-parse', 'main']);
    await submitBranches(repo, 1, [], 'late');
    const second = await land(repo.dir, ['run', '--json']);
    expect(second.code, second.stderr).toBe(0);
    const rejected = second.lines().find((e) => e.type === 'publish_rejected');
    expect(rejected.remote).toBe('origin');
    expect(sh(remote, ['rev-parse', 'main'])).toBe(theirs);
  });
});
