// What a gate leaves behind, end to end with the built CLI: a gate that ignores SIGTERM and leaves
// a grandchild, or whose `setsid` daemon keeps stdout open, leaves nothing running once it exits
// or times out, and its own exit decides the verdict; and a gate whose drainer was killed with
// SIGKILL is killed by the next drainer's recovery before that drainer gates anything.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { land, startLand } from '../../helpers/cli.js';
import { jobsById, landedOrder, makeQueueRepo, submitBranches } from '../../helpers/queue.js';
import { FAIL_AT_ONCE } from '../../helpers/state.js';
import { UNSANDBOXED } from '../../helpers/repo.js';
import { cleanupTempDirs, tempDir } from '../../helpers/repo.js';
import { waitUntil } from '../../helpers/wait.js';
import { killStrays, pidsWritten, running } from '../../helpers/procs.js';

afterAll(cleanupTempDirs);

afterEach(killStrays);

// Records its own pid, a grandchild's that ignores SIGTERM, and a `setsid` daemon's that keeps
// stdout open (each sleeps 300 s), then ends as `$GATE_END` says.
const LEAVES_PROCESSES = [
  'trap "" TERM',
  'echo $$ >> "$GATE_PIDS"',
  'sh -c \'trap "" TERM; echo $$ >> "$GATE_PIDS"; exec sleep 300\' &',
  'setsid -f sh -c \'trap "" TERM; echo $$ >> "$GATE_PIDS"; exec sleep 300\'',
  'while [ "$(wc -l < "$GATE_PIDS")" -lt 3 ]; do sleep 0.05; done',
].join('\n');

function leavingRepo(end: string, timeoutSeconds: number) {
  const pids = join(tempDir('land-contain-'), 'pids');
  // Only the job's change leaves processes: main itself passes (a lone job's FAIL is checked
  // against the target by running the gate there).
  const script = `[ -e file-b1.txt ] || exit 0\n${LEAVES_PROCESSES}\n${end}`;
  // One run per train (retries.flaky 0): a failed lone job is not re-run, so the pids are one run's.
  const repo = makeQueueRepo({
    policy: { gates: [{ name: 'test', run: ['sh', '-c', script], env: { GATE_PIDS: pids }, timeoutSeconds }], ...FAIL_AT_ONCE, sandbox: UNSANDBOXED },
  });
  return { repo, pids };
}

describe('a gate leaves nothing running, and its exit decides', () => {
  it('exit 0 with a TERM-deaf grandchild and a setsid daemon on stdout: PASS, landed, all of it killed at once', async () => {
    const { repo, pids } = leavingRepo('exit 0', 120);
    const [id] = await submitBranches(repo, 1);
    const started = Date.now();
    const run = await land(repo.dir, ['run', '--json'], { timeoutMs: 55_000 });
    expect(run.code, run.stderr).toBe(0);
    // The daemons sleep 300 s and the timeout is 120 s: the run waited for neither.
    expect(Date.now() - started).toBeLessThan(50_000);
    expect((await jobsById(repo)).get(id)).toMatchObject({ state: 'landed' });
    expect(repo.git('ls-tree', '--name-only', 'main')).toContain('file-b1.txt');
    const left = pidsWritten(pids);
    expect(left).toHaveLength(3);
    await waitUntil('every process of the gate to be gone', () => left.every((pid) => !running(pid)), 10_000);
  });

  it('a gate that ignores SIGTERM and hangs: FAIL timeout, and its grandchild and setsid daemon are killed', async () => {
    const { repo, pids } = leavingRepo('sleep 300', 1);
    const [id] = await submitBranches(repo, 1);
    const started = Date.now();
    const run = await land(repo.dir, ['run', '--json'], { timeoutMs: 55_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(50_000);
    expect((await jobsById(repo)).get(id)).toMatchObject({ state: 'failed', reason: 'timeout' });
    const left = pidsWritten(pids);
    expect(left).toHaveLength(3);
    await waitUntil('every process of the gate to be gone', () => left.every((pid) => !running(pid)), 10_000);
  });
}, 120_000);

describe('a gate whose drainer was killed', () => {
  it('is killed by the next drainer before its train is touched; every job lands once', async () => {
    const scratch = tempDir('land-orphan-');
    const pids = join(scratch, 'pids');
    // The first run records itself, a TERM-deaf grandchild and a setsid daemon, and hangs. Every
    // later run fails when any of those still runs (a zombie nobody reaped is not running).
    const script = [
      'if [ ! -e "$GATE_PIDS" ]; then',
      LEAVES_PROCESSES,
      '  sleep 300; exit 0',
      'fi',
      'for p in $(cat "$GATE_PIDS"); do',
      '  [ -r /proc/$p/stat ] || continue',
      '  read -r _ _ state _ < /proc/$p/stat || continue',
      '  [ "$state" = Z ] || { echo "old gate process $p still runs" >&2; exit 1; }',
      'done',
      'exit 0',
    ].join('\n');
    const repo = makeQueueRepo({
      policy: { gates: [{ name: 'test', run: ['sh', '-c', script], env: { GATE_PIDS: pids }, timeoutSeconds: 60 }], sandbox: UNSANDBOXED },
    });
    const ids = await submitBranches(repo, 2);
    const drainer = startLand(repo.dir, ['run']);
    await waitUntil('the gate to record its processes', () => {
      try {
        return readFileSync(pids, 'utf8').trim().split('\n').length >= 3;
      } catch {
        return false;
      }
    });
    drainer.child.kill('SIGKILL');
    await drainer.done;
    const old = pidsWritten(pids);
    expect(old.every(running)).toBe(true); // the old gate outlived its drainer

    const again = await land(repo.dir, ['run', '--json'], { timeoutMs: 55_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(again.lines().some((e) => e.type === 'warning' && /a gate had left running/.test(e.message))).toBe(true);
    for (const pid of old) expect(running(pid)).toBe(false);
    const jobs = await jobsById(repo);
    for (const id of ids) expect(jobs.get(id).state).toBe('landed');
    expect(landedOrder(repo)).toEqual(ids);
  });
}, 120_000);
