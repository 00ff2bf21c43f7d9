import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land, startLand } from '../../helpers/cli.js';
import { cleanupTempDirs, sh, tempDir } from '../../helpers/repo.js';
import { gateScript, jobsById, landedOrder, makeQueueRepo, submitBranches } from '../../helpers/queue.js';
import { UNSANDBOXED } from '../../helpers/repo.js';
import { pidAlive, waitForFile, waitUntil } from '../../helpers/wait.js';
import { runDrain, submitInProcess } from '../../helpers/drainHarness.js';

afterAll(cleanupTempDirs);

describe('land run: the landing', () => {
  it('never lands on a stale base: a target moved during the gate sends the train back to be rebuilt', async () => {
    const scratch = tempDir('land-move-');
    const moveFile = join(scratch, 'move-to');
    const repo = makeQueueRepo({ gate: { script: 'move-target.sh', env: { GATE_MOVE_FILE: moveFile } }, policy: { sandbox: UNSANDBOXED } });
    // GATE_REPO is the repository itself; its path is only known now, so add it to the policy.
    const policy = JSON.parse(repo.git('show', 'main:.ctm.json'));
    policy.gates[0].env.GATE_REPO = repo.dir;
    repo.policy(policy);
    const pushed = repo.branch('pushed', { 'pushed.txt': 'pushed by someone else\n' });
    writeFileSync(moveFile, pushed);
    const ids = await submitBranches(repo, 3);
    const staleBase = repo.tip('main');
    // A drainer's checkout is usually not on the target; a checked-out target that someone else
    // moves is stale and refused as target_dirty, which another test covers.
    repo.git('checkout', '-q', '--detach');

    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const events = run.lines();
    const requeued = events.find((e) => e.type === 'requeued');
    expect(requeued.reason).toMatch(/target moved/);
    // The first train was built on the stale base and never became part of main.
    const firstTrain = events.find((e) => e.type === 'train_built');
    expect(firstTrain.base).toBe(staleBase);
    expect(() => sh(repo.dir, ['merge-base', '--is-ancestor', firstTrain.commit, 'main'])).toThrow();
    const landed = events.find((e) => e.type === 'landed');
    const rebuilt = events.filter((e) => e.type === 'train_built').at(-1);
    expect(rebuilt.base).toBe(pushed);
    expect(landed.commit).toBe(repo.tip('main'));
    expect(repo.git('merge-base', '--is-ancestor', pushed, 'main')).toBe('');
    const jobs = await jobsById(repo);
    for (const id of ids) expect(jobs.get(id).state).toBe('landed');
    expect(landedOrder(repo)).toEqual(ids);
    expect(repo.gateRuns()).toBe(2);
  });

  it('skips a member that conflicts with the train, then fails it against the target with its paths', async () => {
    const repo = makeQueueRepo();
    repo.branch('first', { 'shared.txt': 'first\n' });
    repo.branch('second', { 'shared.txt': 'second\n' });
    repo.branch('third', { 'third.txt': 'third\n' });
    const ids = await submitInProcess(repo.dir, ['first', 'second', 'third']); // the drain's skip is under test, not the submission
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const skipped = run.lines().filter((e) => e.type === 'member_skipped');
    expect(skipped[0]).toMatchObject({ job: ids[1], against: 'train', paths: ['shared.txt'] });
    expect(skipped.at(-1)).toMatchObject({ job: ids[1], against: 'target', paths: ['shared.txt'] });
    const jobs = await jobsById(repo);
    expect(jobs.get(ids[0]).state).toBe('landed');
    expect(jobs.get(ids[2]).state).toBe('landed');
    expect(jobs.get(ids[1])).toMatchObject({ state: 'failed', reason: 'conflict' });
    expect(jobs.get(ids[1]).conflictPreview?.paths).toEqual(['shared.txt']);
    const show = await land(repo.dir, ['show', ids[1] as string]);
    expect(show.stdout).toMatch(/conflicts\s+with the target at [0-9a-f]{12}: shared\.txt/);
    expect(repo.git('show', 'main:shared.txt')).toBe('first');
  });

  it('voids a run when a member is canceled during its gate; the others land after a new gate', async () => {
    const scratch = tempDir('land-cancel-');
    const started = join(scratch, 'started');
    const go = join(scratch, 'go');
    const repo = makeQueueRepo({ gate: { script: 'wait-for-go.sh', env: { GATE_STARTED: started, GATE_GO: go } } });
    const ids = await submitBranches(repo, 3);
    const drainer = startLand(repo.dir, ['run', '--json']);
    await waitForFile(started);
    const cancel = await land(repo.dir, ['cancel', ids[1] as string, '--json']);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.json().outcome).toBe('stop_requested');
    writeFileSync(go, '');
    const result = await drainer.done;
    expect(result.code, result.stderr).toBe(0);
    const jobs = await jobsById(repo);
    expect(jobs.get(ids[1]).state).toBe('canceled');
    expect(jobs.get(ids[0]).state).toBe('landed');
    expect(jobs.get(ids[2]).state).toBe('landed');
    expect(landedOrder(repo)).toEqual([ids[0], ids[2]]);
    // The canceled branch's tip never reached main.
    expect(() => repo.git('merge-base', '--is-ancestor', jobs.get(ids[1]).tip, 'main')).toThrow();
    expect(repo.gateRuns()).toBe(2);
  });

  it('kills the whole process group of a gate that times out, grandchild included', async () => {
    const scratch = tempDir('land-timeout-');
    const pidFile = join(scratch, 'grandchild.pid');
    // The gate hangs on the job's change only: main itself passes it (the target check before the
    // job is failed alone runs the same gate on main).
    const hangs = `[ -e file-b1.txt ] || exit 0; exec sh ${gateScript('spawn-grandchild.sh')}`;
    const repo = makeQueueRepo({
      policy: { gates: [{ name: 'test', run: ['sh', '-c', hangs], env: { GATE_PIDFILE: pidFile }, timeoutSeconds: 1 }], sandbox: UNSANDBOXED },
    });
    const [id] = await submitBranches(repo, 1);
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const job = (await jobsById(repo)).get(id as string);
    expect(job).toMatchObject({ state: 'failed', reason: 'timeout' });
    const pid = Number(readPid(pidFile));
    expect(pid).toBeGreaterThan(0);
    await waitUntil(`grandchild ${pid} to be gone`, () => !pidAlive(pid), 5_000);
  });

  it('requeues without bisection when a gate cannot start, then gives up after retries.infra', async () => {
    const repo = makeQueueRepo({ policy: { gates: [{ name: 'missing', run: ['/nonexistent/gate-binary'] }], retries: { infra: 2 } } });
    const ids = await submitBranches(repo, 2);
    // A variant of the infrastructure retry decision: the drain in this process (a stop of null is
    // `land run`'s exit 0); the back-off's wording is checked end to end in failureMessages.test.ts.
    const run = await runDrain(repo.dir);
    expect(run.summary.stopped).toBeNull();
    const { events } = run;
    expect(events.some((e) => e.type === 'bisected')).toBe(false);
    expect(run.of('requeued').filter((e) => /nothing was tested/.test(e.reason))).toHaveLength(2);
    const jobs = await jobsById(repo);
    for (const id of ids) expect(jobs.get(id)).toMatchObject({ state: 'failed', reason: 'infra' });
    expect(repo.git('rev-list', '--count', 'main')).toBe('2');
  });
});

function readPid(path: string): string {
  return readFileSync(path, 'utf8').trim();
}
