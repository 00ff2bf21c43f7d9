// Shipping a train commit to an executor through a real sshd on 127.0.0.1 (test/helpers/sshd.ts):
// the cache repository made on first use, the slot's ref moved to each train commit, and an
// executor that does not answer reported as INFRA that marks it down, never as a verdict. Left out
// (reported as skipped) only on a machine without sshd and without LAND_REQUIRE_SSHD=1.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAND_BIN, land } from '../../helpers/cli.js';
import { VERSION } from '../../../lib/version.js';
import { runOnExecutor } from '../../../lib/landing/executors/remoteRun.js';
import type { ExecutorRequestInput } from '../../../lib/landing/executors/request.js';
import { closeMasters, openControlDir } from '../../../lib/landing/executors/connectionReuse.js';
import { prepareExecutor, shipCommit } from '../../../lib/landing/executors/ship.js';
import { type SshExecutor, sshSettings } from '../../../lib/landing/executors/sshArgv.js';
import { runDrain } from '../../helpers/drainHarness.js';
import { makeQueueRepo, submitBranches } from '../../helpers/queue.js';
import { cleanupTempDirs, makeRepo, tempDir } from '../../helpers/repo.js';
import { SSHD, SSHD_REQUIRED, sshdInstalled, suiteSshd, type TestSshd } from '../../helpers/sshd.js';

// The executor is this machine: its land is the built CLI of this checkout.
const LAND_ON_EXECUTOR = `${process.execPath} ${LAND_BIN}`;

const sshd = suiteSshd();
const started = (): TestSshd => sshd.started();

function executorAt(port: number, dir: string): SshExecutor {
  const { user } = started();
  return { kind: 'ssh', name: `ssh://${user}@testlane:${port}`, slots: 2, ssh: { user, host: 'testlane', port }, dir, land: LAND_ON_EXECUTOR };
}

const slotTip = (dir: string, slot: number) =>
  execFileSync('git', ['--git-dir', join(dir, 'cache.git'), 'rev-parse', `refs/land/slot/${slot}`], { encoding: 'utf8' }).trim();

/** A log that keeps what it was given, and says when a text first reaches it. */
function collectingLog() {
  const log = new PassThrough();
  let text = '';
  log.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const until = async (part: string) => {
    for (let waited = 0; !text.includes(part); waited += 50) {
      if (waited > 20_000) throw new Error(`the log never said ${part}: ${text}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { log, text: () => text, until };
}

function requestFor(
  commit: string,
  base: string,
  gate: { run: string; timeoutSeconds?: number; passEnv?: string[] },
): ExecutorRequestInput & { gates: { timeoutSeconds: number }[] } {
  return {
    v: 1,
    slot: 0,
    commit,
    gates: [{ name: 'test', timeoutSeconds: 60, ...gate }],
    sandbox: { mode: 'auto' },
    train: { LAND_TIP: commit, LAND_BASE: base, LAND_JOB: 'j1', LAND_MEMBERS: 'j1', LAND_TRAIN: 't1' },
    passEnv: { TOK: 'hush-hush-value' },
    logMaxBytes: 1024 * 1024,
  };
}

function processGone(pattern: string): boolean {
  try {
    execFileSync('pgrep', ['-f', pattern], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
}

describe.skipIf(!sshdInstalled() && !SSHD_REQUIRED)(`shipping a train to an executor (a real sshd, ${SSHD})`, () => {
  beforeAll(() => sshd.start(tempDir('land-sshd-')));

  afterAll(() => {
    sshd.stop();
    cleanupTempDirs();
  });

  it('makes the cache repository on first use and moves the slot’s ref to each train commit', async () => {
    const settings = sshSettings({ LAND_SSH_CONFIG: started().config });
    const repo = makeRepo();
    const dir = join(tempDir('land-executor-'), 'land');
    const executor = executorAt(started().port, dir);
    expect(await prepareExecutor(settings, executor)).toBeNull();
    expect(existsSync(join(dir, 'cache.git', 'HEAD'))).toBe(true);
    expect(await prepareExecutor(settings, executor)).toBeNull(); // again: harmless

    const first = repo.commit('one', { 'a.txt': 'a\n' });
    expect(await shipCommit(repo.dir, settings, executor, first, 1)).toEqual({ kind: 'shipped', ref: 'refs/land/slot/1' });
    expect(slotTip(dir, 1)).toBe(first);
    // The next train, on another line of history: the slot's ref follows it (forced), the old one stays readable.
    const other = repo.branch('side', { 'b.txt': 'b\n' }, `${first}~1`);
    expect(await shipCommit(repo.dir, settings, executor, other, 1)).toEqual({ kind: 'shipped', ref: 'refs/land/slot/1' });
    expect(slotTip(dir, 1)).toBe(other);
    expect(execFileSync('git', ['--git-dir', join(dir, 'cache.git'), 'cat-file', '-t', first], { encoding: 'utf8' }).trim()).toBe('commit');
  });

  it('runs a train’s gates on the executor over one master connection: the log streamed back, the verdict from the exit status, an abandoned or timed-out gate killed there', async () => {
    const controlDir = openControlDir() ?? '';
    expect(controlDir).toMatch(/^\/tmp\/land-ssh-/);
    expect(statSync(controlDir).mode & 0o777).toBe(0o700);
    const settings = { ...sshSettings({ LAND_SSH_CONFIG: started().config }), controlDir };
    const repo = makeRepo();
    const base = repo.tip('main');
    const dir = join(tempDir('land-executor-'), 'land');
    const executor = executorAt(started().port, dir);
    expect(await prepareExecutor(settings, executor)).toBeNull();
    const train = repo.commit('train', { 'a.txt': 'shipped content\n' });
    expect(await shipCommit(repo.dir, settings, executor, train, 0)).toMatchObject({ kind: 'shipped' });

    const passing = collectingLog();
    const gate = { run: 'cat a.txt; echo "tok=$TOK tip=$LAND_TIP"; touch left-behind', passEnv: ['TOK'] };
    expect(await runOnExecutor({ settings, executor, request: requestFor(train, base, gate), log: passing.log })).toEqual({ kind: 'pass' });
    expect(passing.text()).toContain(`shipped content\ntok=*** tip=${train}\n`);
    expect(passing.text()).not.toContain('hush-hush');

    // The same slot again: what the last gates left is gone before the next run's gates start.
    const failing = collectingLog();
    const failGate = { run: 'test ! -e left-behind && echo clean; exit 3' };
    expect(await runOnExecutor({ settings, executor, request: requestFor(train, base, failGate), log: failing.log })).toEqual({ kind: 'fail', reason: 'exit' });
    expect(failing.text()).toMatch(/clean\n== gate test: exit 3 after/);

    // The drainer abandons a run: the ssh session ends, and the gate's process group on the executor is killed.
    const marker = `sleep 97${process.pid % 1000}`;
    const abandoned = collectingLog();
    const stop = new AbortController();
    const running = runOnExecutor({
      settings,
      executor,
      request: requestFor(train, base, { run: `echo started; ${marker}` }),
      log: abandoned.log,
      signal: stop.signal,
    });
    await abandoned.until('started');
    expect(processGone(marker)).toBe(false);
    stop.abort();
    expect(await running).toEqual({ kind: 'abandoned' });
    for (let waited = 0; !processGone(marker) && waited < 8_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(processGone(marker)).toBe(true);

    // A gate past its timeout: FAIL (timeout), and its process group on the executor killed.
    const slow = `sleep 96${process.pid % 1000}`;
    const timedOut = collectingLog();
    const timeoutRun = runOnExecutor({
      settings,
      executor,
      request: requestFor(train, base, { run: `echo started; ${slow}`, timeoutSeconds: 1 }),
      log: timedOut.log,
    });
    expect(await timeoutRun).toEqual({ kind: 'fail', reason: 'timeout' });
    expect(timedOut.text()).toMatch(/started\n[\s\S]*== gate test: timed out after /);
    for (let waited = 0; !processGone(slow) && waited < 8_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(processGone(slow)).toBe(true);

    // Every call went through the one master (its socket in the folder); the drain's end closes it.
    const [socket] = readdirSync(controlDir);
    expect(processGone(`${controlDir}/${socket} \\[mux\\]`)).toBe(false);
    await closeMasters(settings, [executor]);
    expect(existsSync(controlDir)).toBe(false);
    for (let waited = 0; !processGone(`${controlDir}/`) && waited < 5_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(processGone(`${controlDir}/`)).toBe(true);
  });

  it('a drain gates a train on an executor and lands it; an unreachable executor is INFRA for that run, retried on the other', async () => {
    const { user, port, config } = started();
    const dir = join(tempDir('land-executor-'), 'drain');
    const down = `ssh://${user}@testlane:1`; // nothing listens there; first in policy order, so tried first
    const up = `ssh://${user}@testlane:${port}`;
    const repo = makeQueueRepo({
      policy: {
        executors: [
          { host: down, land: LAND_ON_EXECUTOR },
          { host: up, dir, land: LAND_ON_EXECUTOR },
        ],
      },
    });
    const [id] = await submitBranches(repo, 1);
    const run = await runDrain(repo.dir, { env: { LAND_SSH_CONFIG: config } });
    expect(run.summary.landed).toEqual([id]);
    expect(repo.gateRuns()).toBe(1); // the gate ran once, on the executor that answers
    // Its progress, read from the runner's streamed lines, as a gate on the drainer reports it.
    expect(run.of('gate_started')).toEqual([expect.objectContaining({ gate: 'test' })]);
    expect(run.of('gate_finished')).toEqual([expect.objectContaining({ gate: 'test', status: 'exit 0' })]);
    const log = (await land(repo.dir, ['log', id as string])).stdout;
    expect(log).toMatch(new RegExp(`== ${down}: INFRA, nothing was tested \\(cannot prepare ${down} .*; marked down for a while\n`));
    expect(log).toContain(`== gates on ${up}, slot 0\n== on the executor, slot 0 at `);
    expect(log).toMatch(/== gate test: exit 0 after /);
    expect(existsSync(join(dir, 'slots', '0'))).toBe(true);
    // land status lists the executors: the one that did not answer as down, with why.
    const status = await land(repo.dir, ['status', '--json']);
    expect(status.json().executors).toEqual([
      expect.objectContaining({ name: down, health: 'down', reason: expect.stringMatching(/^cannot prepare/) }),
      expect.objectContaining({ name: up, health: 'up' }),
    ]);
    expect((await land(repo.dir, ['status'])).stdout).toMatch(new RegExp(`^executors:\n  ${down} \\(1 slot\\): down since \\d\\d:\\d\\d:\\d\\dZ`, 'm'));
  });

  it('land doctor lists each executor: the drainer, one that answers, one that does not', async () => {
    const { user, port, config } = started();
    const dir = join(tempDir('land-executor-'), 'doctor');
    const executors = [
      { host: 'local' },
      { host: `ssh://${user}@testlane:${port}`, slots: 2, dir, land: LAND_ON_EXECUTOR },
      { host: `ssh://${user}@testlane:1` },
    ];
    const repo = makeRepo({ policy: { target: 'main', gates: [], executors } });
    const doctor = await land(repo.dir, ['doctor', '--json'], { env: { LAND_SSH_CONFIG: config } });
    expect(doctor.json().executors).toEqual([
      { name: 'local', slots: 1, dir: null, ok: true, detail: 'this machine' },
      {
        name: `ssh://${user}@testlane:${port}`,
        slots: 2,
        dir,
        ok: true,
        detail: expect.stringMatching(new RegExp(`^git version \\d\\S*; land ${VERSION.replaceAll('.', '\\.')}$`)),
      },
      { name: `ssh://${user}@testlane:1`, slots: 1, dir: '/var/tmp/land', ok: false, detail: expect.stringMatching(/^unreachable: .*(refused|port 1)/) },
    ]);
    expect(existsSync(dir)).toBe(true);
  });

  it('reports an executor that does not answer as INFRA that marks it down', async () => {
    const settings = sshSettings({ LAND_SSH_CONFIG: started().config });
    const repo = makeRepo();
    const executor = executorAt(1, '/var/tmp/land'); // nothing listens on port 1
    const prepared = await prepareExecutor(settings, executor);
    expect(prepared).toMatchObject({ kind: 'infra', down: true });
    expect(prepared?.detail).toMatch(/^cannot prepare ssh:\/\/\S+@testlane:1 \(\/var\/tmp\/land\): .*(refused|port 1)/);
    const shipped = await shipCommit(repo.dir, settings, executor, repo.tip('main'), 0);
    expect(shipped).toMatchObject({ kind: 'infra', down: true });
    expect(shipped.kind === 'infra' && shipped.detail).toMatch(/^cannot ship the train to ssh:\/\/\S+@testlane:1: .*(refused|port 1)/);
    const base = repo.tip('main');
    const ran = await runOnExecutor({ settings, executor, request: requestFor(base, base, { run: 'true' }), log: new PassThrough() });
    expect(ran).toMatchObject({ kind: 'infra', down: true, detail: expect.stringMatching(/^unreachable or connection lost: .*(refused|port 1)/) });
  });
});
