// `land run --watch`: the drainer stays up on an empty queue, lands what is submitted later,
// holds the drain lock throughout, stops cleanly on a signal while idle and at the train
// boundary while a gate runs, exits after --idle-exit, and works with polling forced.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land, startLand } from '../helpers/cli.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';
import { jobsById, makeQueueRepo, submitBranches, type QueueRepo } from '../helpers/queue.js';
import { waitForFile, waitUntil } from '../helpers/wait.js';

afterAll(cleanupTempDirs);

type Drainer = ReturnType<typeof startLand>;

const events = (drainer: Drainer): any[] =>
  drainer
    .output()
    .stdout.split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
const eventsOf = (drainer: Drainer, type: string) => events(drainer).filter((event) => event.type === type);

async function stateOf(repo: QueueRepo, id: string): Promise<string> {
  return (await jobsById(repo)).get(id)?.state;
}

/**
 * Submits one branch to a watching drainer: returns how long the drainer took to react (its
 * `resumed` event) and waits for the landing (its `landed` event; the record is checked after).
 */
async function submitToWatcher(repo: QueueRepo, drainer: Drainer, name: string): Promise<{ id: string; reactionMs: number }> {
  const resumedBefore = eventsOf(drainer, 'resumed').length;
  const idleBefore = eventsOf(drainer, 'idle').length;
  const [id] = await submitBranches(repo, 1, [], name);
  const submitted = Date.now();
  await waitUntil(`the drainer to resume for ${id}`, () => eventsOf(drainer, 'resumed').length > resumedBefore, 8_000);
  const reactionMs = Date.now() - submitted;
  await waitUntil(`${id} to land`, () => eventsOf(drainer, 'landed').some((event) => event.members.includes(id)), 8_000);
  expect(await stateOf(repo, id as string)).toBe('landed');
  // Idle again: the train's records are written (a signal before that stops mid-train: exit 130).
  await waitUntil('the drainer to be idle again', () => eventsOf(drainer, 'idle').length > idleBefore, 8_000);
  return { id: id as string, reactionMs };
}

describe('land run --watch', () => {
  it('stays up on an empty queue, lands a later submission within seconds, and a SIGHUP while idle (its terminal closed) exits 0 as a SIGTERM does', async () => {
    const repo = makeQueueRepo();
    const drainer = startLand(repo.dir, ['run', '--watch', '--json']);
    await waitUntil('the idle event', () => eventsOf(drainer, 'idle').length === 1, 8_000);
    expect(eventsOf(drainer, 'idle')[0]).toMatchObject({ target: 'main', idleExitSeconds: null, polling: false });
    // It holds the drain lock while idle: another drainer cannot start.
    const other = await land(repo.dir, ['run', '--no-wait']);
    expect(other.code).toBe(6);
    expect(other.stderr).toMatch(new RegExp(`another drainer holds the queue: pid ${drainer.child.pid}`));

    const { id, reactionMs } = await submitToWatcher(repo, drainer, 'late');
    expect(reactionMs).toBeLessThan(4_000);
    expect(repo.git('ls-tree', '--name-only', 'main')).toContain('file-late1.txt');
    await waitUntil('idle again', () => eventsOf(drainer, 'idle').length === 2, 8_000);
    expect(eventsOf(drainer, 'resumed')).toHaveLength(1);
    expect(eventsOf(drainer, 'resumed')[0]).toMatchObject({ jobs: 1 });

    drainer.child.kill('SIGHUP');
    const result = await drainer.done;
    expect(result.code, result.stderr).toBe(0);
    expect(eventsOf(drainer, 'watch_ended')).toEqual([expect.objectContaining({ why: 'signal' })]);
    // The summary covers the whole watch session.
    expect(events(drainer).at(-1)).toMatchObject({ type: 'summary', landed: [id], failed: [], queued: [], stopped: null });
    expect([...(await jobsById(repo)).values()].filter((job) => job.state === 'in_progress')).toEqual([]);
    // The lock is released: a new drainer starts at once.
    expect((await land(repo.dir, ['run', '--no-wait'])).code).toBe(0);
  });

  it('--idle-exit: lands what was queued, then exits 0 once the queue has been empty that long', async () => {
    const repo = makeQueueRepo();
    const ids = await submitBranches(repo, 2);
    const started = Date.now();
    const result = await land(repo.dir, ['run', '--watch', '--idle-exit', '2'], { timeoutMs: 20_000 });
    const elapsed = Date.now() - started;
    expect(result.code, result.stderr).toBe(0);
    const jobs = await jobsById(repo);
    for (const id of ids) expect(jobs.get(id).state).toBe('landed');
    expect(elapsed).toBeGreaterThanOrEqual(2_000);
    expect(result.stderr).toContain('queue empty; waiting for submissions (idle-exit in 2s)');
    const idleFor = Number(/queue empty for ([\d.]+)s; exiting \(--idle-exit\)/.exec(result.stderr)?.[1]);
    expect(idleFor).toBeGreaterThanOrEqual(2);
    expect(idleFor).toBeLessThan(4);
    expect(result.stdout).toMatch(/2 landed/);
  });

  it('a job for another target does not wake it into work, nor restart the idle time', async () => {
    const repo = makeQueueRepo();
    const policy = JSON.parse(repo.git('show', 'main:.ctm.json'));
    repo.git('checkout', '-q', '-b', 'release');
    repo.policy({ ...policy, target: 'release' });
    repo.git('checkout', '-q', 'main');
    repo.branch('fix', { 'fix.txt': 'fix\n' }, 'release');
    const drainer = startLand(repo.dir, ['run', '--watch', '--idle-exit', '3', '--json']);
    await waitUntil('the idle event', () => eventsOf(drainer, 'idle').length === 1, 8_000);
    const submitted = await land(repo.dir, ['--target', 'release', 'submit', 'fix', '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const result = await drainer.done;
    expect(result.code, result.stderr).toBe(0);
    expect(eventsOf(drainer, 'resumed')).toEqual([]);
    expect(eventsOf(drainer, 'train_built')).toEqual([]);
    expect(eventsOf(drainer, 'watch_ended')).toEqual([expect.objectContaining({ why: 'idle_exit' })]);
    expect(eventsOf(drainer, 'watch_ended')[0].idleSeconds).toBeGreaterThanOrEqual(3);
    expect(await stateOf(repo, submitted.json().job.id)).toBe('queued');
  });

  it('SIGTERM while a gate runs stops after that train lands, not before (exit 130)', async () => {
    const scratch = tempDir('land-slow-');
    const started = join(scratch, 'started');
    const go = join(scratch, 'go');
    const repo = makeQueueRepo({ gate: { script: 'wait-for-go.sh', env: { GATE_STARTED: started, GATE_GO: go } } });
    const [first] = await submitBranches(repo, 1);
    const drainer = startLand(repo.dir, ['run', '--watch', '--json']);
    await waitForFile(started, 8_000);
    drainer.child.kill('SIGTERM');
    await waitUntil('the stopping event', () => eventsOf(drainer, 'stopping').length === 1, 5_000);
    // Submitted while the train runs: it must wait for the next drainer.
    const [second] = await submitBranches(repo, 1, [], 'next');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(drainer.child.exitCode).toBeNull();
    expect(await stateOf(repo, first as string)).toBe('in_progress');
    writeFileSync(go, '');
    const result = await drainer.done;
    expect(result.code, result.stderr).toBe(130);
    const jobs = await jobsById(repo);
    expect(jobs.get(first).state).toBe('landed');
    expect(jobs.get(second).state).toBe('queued');
    expect(repo.tip('main')).toBe(jobs.get(first).tip);
    expect(eventsOf(drainer, 'watch_ended')).toEqual([]);
    expect(events(drainer).at(-1)).toMatchObject({ type: 'summary', landed: [first], queued: [second], stopped: { why: 'interrupted' } });
  });

  it('picks up a submission with polling forced (LAND_WATCH_POLL=1)', async () => {
    const repo = makeQueueRepo();
    const drainer = startLand(repo.dir, ['run', '--watch', '--json'], { env: { LAND_WATCH_POLL: '1' } });
    await waitUntil('the idle event', () => eventsOf(drainer, 'idle').length === 1, 8_000);
    expect(eventsOf(drainer, 'idle')[0]).toMatchObject({ polling: true });
    const { reactionMs } = await submitToWatcher(repo, drainer, 'polled');
    expect(reactionMs).toBeLessThan(4_000);
    drainer.child.kill('SIGINT');
    expect((await drainer.done).code).toBe(0);
  });

  it('refuses --watch with --once, and a bad or stray --idle-exit (exit 2)', async () => {
    const repo = makeQueueRepo();
    const cases: [string[], RegExp][] = [
      [['run', '--watch', '--once'], /--watch and --once do not go together/],
      [['run', '--watch', '--idle-exit', '0'], /--idle-exit: expected a positive number of seconds/],
      [['run', '--watch', '--idle-exit', 'soon'], /--idle-exit: expected a positive number of seconds/],
      [['run', '--idle-exit', '5'], /--idle-exit only goes with --watch/],
    ];
    for (const [args, message] of cases) {
      const result = await land(repo.dir, args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/draining the queue/);
    }
  });
});
