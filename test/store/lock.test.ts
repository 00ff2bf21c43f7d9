// Fault test 6: locks left by dead processes, and two newcomers taking over one abandoned drain
// lock at the same instant. Real processes: the dead holder is a process that really ran and was
// killed (its pid is gone), the contenders are separate node processes.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localStore } from '../../lib/store/index.js';
import { processStart } from '../../lib/store/landingToken.js';
import { LAND_BIN, land, startLand } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo, tempDir } from '../helpers/repo.js';
import { stateDir } from '../helpers/state.js';
import { pidAlive, waitUntil } from '../helpers/wait.js';

afterAll(cleanupTempDirs);

const STORE = join(LAND_BIN, '..', '..', 'lib', 'store', 'index.js');

/** A pid that was a real process and is gone now. */
function deadPid(): number {
  const pid = spawnSync('true').pid as number;
  expect(pidAlive(pid)).toBe(false);
  return pid;
}

/** The drain lock as a drainer killed with kill -9 leaves it: the lock folder and its holder file. */
function abandonDrainLock(root: string, holder: { pid: number; start?: string }): void {
  mkdirSync(join(root, 'locks', 'drain.lock'), { recursive: true });
  writeFileSync(
    join(root, 'locks', 'drain-holder.json'),
    JSON.stringify({ pid: holder.pid, host: hostname(), id: 'dead-holder', token: 'dead-holder', start: holder.start ?? '1', since: new Date().toISOString() }),
  );
}

/**
 * One contender: a node process that, once every contender of its round is up (each writes a
 * ready file in `barrier` and waits for the others'), tries to take the drain lock without
 * waiting, holds it `holdMs` if it got it, and prints won or busy.
 */
function contender(root: string, barrier: string, contenders: number, holdMs: number) {
  const code = `
import { readdirSync, writeFileSync } from 'node:fs';
const { localStore } = await import(${JSON.stringify(STORE)});
const store = localStore(${JSON.stringify(root)});
writeFileSync(${JSON.stringify(barrier)} + '/' + process.pid, '');
while (readdirSync(${JSON.stringify(barrier)}).length < ${contenders}) {}
try {
  const lease = await store.acquireDrainLock({ wait: false });
  process.stdout.write('won\\n');
  await new Promise((r) => setTimeout(r, ${holdMs}));
  if (!lease.holds()) process.stdout.write('lost-while-holding\\n');
  await lease.release();
} catch (error) {
  process.stdout.write((error.code ?? error.message) + '\\n');
}`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise<string>((resolve) => child.on('close', () => resolve(out.trim())));
}

describe('locks left by dead processes', () => {
  it('two processes taking over one abandoned drain lock at once: exactly one wins, every time', async () => {
    const root = tempDir('land-lock-');
    localStore(root).ensure();
    for (let round = 0; round < 5; round += 1) {
      abandonDrainLock(root, { pid: deadPid() });
      // Both contenders start at the same instant, once both processes are up.
      const barrier = tempDir('land-barrier-');
      const results = await Promise.all([contender(root, barrier, 2, 1500), contender(root, barrier, 2, 1500)]);
      expect(results.sort(), `round ${round}`).toEqual(['busy', 'won']);
    }
  }, 120_000);

  it('a holder whose pid now belongs to another process (a reused pid) counts as dead', async () => {
    const root = tempDir('land-lock-');
    const store = localStore(root);
    store.ensure();
    // This very process's pid, with another start time: the pid was reused.
    abandonDrainLock(root, { pid: process.pid, start: String(Number(processStart(process.pid)) + 1) });
    const lease = await store.acquireDrainLock({ wait: false });
    expect(lease.holds()).toBe(true);
    expect(store.drainHolder()?.id).not.toBe('dead-holder');
    await lease.release();
  });

  it('a drain lock with no holder file (a drainer killed right after taking it) is taken over once its heartbeat is silent', async () => {
    const root = tempDir('land-lock-');
    const store = localStore(root);
    store.ensure();
    const lockDir = join(root, 'locks', 'drain.lock');
    mkdirSync(lockDir, { recursive: true });
    // Fresh: it may be a drainer about to write its holder file; --no-wait says who it cannot name.
    await expect(store.acquireDrainLock({ wait: false })).rejects.toThrow(/wrote no holder file/);
    // Its last heartbeat 9 s ago (beats come every 2 s): abandoned, taken over at once, not after 30 s.
    const lastBeat = new Date(Date.now() - 9_000);
    utimesSync(lockDir, lastBeat, lastBeat);
    const lease = await store.acquireDrainLock({ wait: false });
    expect(lease.holds()).toBe(true);
    await lease.release();
  });

  it('a queue lock left by a killed process does not stop the next command', async () => {
    const repo = makeRepo({ policy: { target: 'main', gates: [{ name: 't', run: ['true'] }] } });
    repo.branch('f', { 'f.txt': 'f\n' });
    const lockDir = join(stateDir(repo), 'locks', 'queue.lock');
    mkdirSync(lockDir, { recursive: true });
    // Its heartbeat stopped when the process died: the folder's time is that of its last beat.
    const lastBeat = new Date(Date.now() - 60_000);
    utimesSync(lockDir, lastBeat, lastBeat);
    const submitted = await land(repo.dir, ['submit', 'f', '--json'], { timeoutMs: 60_000 });
    expect(submitted.code, submitted.stderr).toBe(0);
  });

  it('a drainer killed with kill -9 in its gate: the next land run takes the drain lock at once and lands', async () => {
    const scratch = tempDir('land-lock-');
    const started = join(scratch, 'started');
    const repo = makeRepo({
      policy: {
        target: 'main',
        gates: [{ name: 't', run: ['sh', '-c', 'if [ ! -e "$STARTED" ]; then touch "$STARTED"; sleep 60; fi; exit 0'], env: { STARTED: started } }],
      },
    });
    repo.branch('f', { 'f.txt': 'f\n' });
    repo.git('checkout', '-q', '--detach');
    const id = (await land(repo.dir, ['submit', 'f', '--json'])).json().job.id;
    const first = startLand(repo.dir, ['run', '--json']);
    await waitUntil('the gate to start', () => existsSync(started), 60_000);
    first.child.kill('SIGKILL');
    await first.done;
    const next = await land(repo.dir, ['run', '--no-wait', '--json'], { timeoutMs: 90_000 });
    expect(next.code, next.stderr).toBe(0);
    expect(next.lines().at(-1)).toMatchObject({ type: 'summary', landed: [id] });
  }, 120_000);
});
