// Containment of a run's descendants with real processes: what left the process group or the
// session is still found (by the run marker in its environment, by the tree seen while the run
// went on, by its working folder) and killed once the leader exits or times out; the leader's
// own exit decides the ending; and the run never waits on an output pipe past a short grace.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killStrays, pidsWritten, running, trackStray } from '../helpers/procs.js';
import { killRun, markerScope, newRunMarker, RUN_MARKER_VAR, RunContainment, runProcess } from '../../lib/proc/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  killStrays();
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'land-contain-'));
  dirs.push(dir);
  return dir;
}

async function waitFor(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Runs `script` with sh as a contained gate would run: marker set, group killed on exit. */
function runContained(script: string, opts: { timeoutMs?: number; cwd?: string; cwdUnder?: string; args?: string[]; trackEveryMs?: number } = {}) {
  const marker = newRunMarker('test', 'descendants');
  return runProcess({
    argv: ['sh', '-c', script, 'sh', ...(opts.args ?? [])],
    cwd: opts.cwd,
    env: { ...process.env, [RUN_MARKER_VAR]: marker },
    stdout: () => undefined,
    stderr: () => undefined,
    timeoutMs: opts.timeoutMs,
    killGraceMs: 500,
    killGroupOnExit: true,
    contain: new RunContainment({ marker, cwdUnder: opts.cwdUnder, trackEveryMs: opts.trackEveryMs }),
    outputGraceMs: 1_000,
  });
}

describe('contained runs: nothing of a run outlives it', () => {
  it('a setsid daemon holding stdout: the exit decides (exit 0), the daemon is killed, no wait on the pipe', async () => {
    const pids = join(scratch(), 'pids');
    const started = Date.now();
    const { ending } = await runContained('setsid -f sh -c \'echo $$ >> "$1"; exec sleep 30\' sh "$1"; while [ ! -s "$1" ]; do sleep 0.05; done; exit 0', {
      args: [pids],
      timeoutMs: 1_500,
    });
    expect(ending).toMatchObject({ kind: 'exited', code: 0 });
    expect(Date.now() - started).toBeLessThan(15_000);
    const [daemon] = pidsWritten(pids);
    await waitFor(() => !running(daemon as number), 'the setsid daemon to be gone');
  });

  it('a leader that ignores SIGTERM with a grandchild and a setsid daemon: a timeout kills them all', async () => {
    const pids = join(scratch(), 'pids');
    const script = [
      'trap "" TERM',
      'sh -c \'trap "" TERM; echo $$ >> "$1"; sleep 30\' sh "$1" &',
      'setsid -f sh -c \'trap "" TERM; echo $$ >> "$1"; sleep 30\' sh "$1"',
      'while [ "$(wc -l < "$1")" -lt 2 ]; do sleep 0.05; done',
      'sleep 30',
    ].join('\n');
    const started = Date.now();
    const { ending } = await runContained(script, { args: [pids], timeoutMs: 1_500 });
    expect(ending.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(15_000);
    const left = pidsWritten(pids);
    expect(left).toHaveLength(2);
    await waitFor(() => left.every((pid) => !running(pid)), 'the grandchild and the daemon to be gone');
  });

  it('a timeout after the leader exited changes nothing: the exit code stays the ending', async () => {
    // The daemon clears its environment and leaves the session at once: nothing finds it, so
    // it holds stdout past the timeout; the run still ends with the leader's exit, after the grace.
    const pids = join(scratch(), 'pids');
    const started = Date.now();
    const { ending } = await runContained(
      'env -i setsid -f /bin/sh -c \'echo $$ >> "$1"; exec sleep 30\' sh "$1"; while [ ! -s "$1" ]; do sleep 0.05; done; exit 3',
      {
        args: [pids],
        timeoutMs: 300,
      },
    );
    pidsWritten(pids);
    expect(ending).toMatchObject({ kind: 'exited', code: 3 });
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a process seen under the leader is killed after it cleared its environment and left the session', async () => {
    const pids = join(scratch(), 'pids');
    // The child keeps its pid through `exec setsid` (not a group leader, setsid needs no fork).
    const child = 'echo $$ >> "$1"; sleep 1; exec /usr/bin/setsid /bin/sleep 30';
    const script = `env -i /bin/sh -c '${child}' sh "$1" & sleep 2; exit 0`;
    const { ending } = await runContained(script, { args: [pids], trackEveryMs: 100 });
    expect(ending).toMatchObject({ kind: 'exited', code: 0 });
    const [tracked] = pidsWritten(pids);
    await waitFor(() => !running(tracked as number), 'the tracked process to be gone');
  });

  it('a process that cleared its environment but stayed in the session is killed (its own group, no marker)', async () => {
    const pids = join(scratch(), 'pids');
    // perl's setpgrp: a process group of its own, in the gate's session; then no environment.
    const { ending } = await runContained('perl -e "setpgrp(0,0); exec @ARGV" env -i /bin/sleep 30 & echo $! >> "$1"; exit 0', { args: [pids] });
    expect(ending).toMatchObject({ kind: 'exited', code: 0 });
    const [job] = pidsWritten(pids);
    await waitFor(() => !running(job as number), 'the job in the session to be gone');
  });

  it('with a folder named, a process working in it is killed even with no marker and no tree', async () => {
    const dir = scratch();
    const pids = join(dir, 'pids');
    const { ending } = await runContained('env -i setsid -f /bin/sh -c \'echo $$ >> "$1"; exec sleep 30\' sh "$1"; while [ ! -s "$1" ]; do sleep 0.05; done', {
      args: [pids],
      cwd: dir,
      cwdUnder: dir,
    });
    expect(ending).toMatchObject({ kind: 'exited', code: 0 });
    const [daemon] = pidsWritten(pids);
    await waitFor(() => !running(daemon as number), 'the daemon working in the folder to be gone');
  });
});

describe('killRun: the processes of a scope, found by their marker alone', () => {
  it('kills the processes of its scope (a detached one included) and leaves another scope alone', async () => {
    const scope = markerScope(scratch());
    const other = markerScope(scratch());
    const start = (marker: string) => {
      const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore', env: { ...process.env, [RUN_MARKER_VAR]: marker } });
      child.unref();
      trackStray(child.pid as number);
      return child.pid as number;
    };
    const mine = start(newRunMarker(scope, 'a'));
    const theirs = start(newRunMarker(other, 'b'));
    await waitFor(() => readFileSync(`/proc/${mine}/environ`, 'latin1').includes(scope), 'the sleep to have its environment');
    const killed = await killRun({ marker: `${scope}:` });
    expect(killed).toEqual([mine]);
    await waitFor(() => !running(mine), 'the process of the scope to be gone');
    expect(running(theirs)).toBe(true);
  });

  it('takes the group and session of a marked process: an orphan there that cleared its environment goes too', async () => {
    const dir = scratch();
    const scope = markerScope(dir);
    const pids = join(dir, 'pids');
    // The subshell starts the orphan and ends at once: the orphan is no marked process's child.
    const script = '(env -i /bin/sh -c \'echo $$ >> "$1"; exec sleep 30\' sh "$1" &); exec sleep 30';
    const leader = spawn('sh', ['-c', script, 'sh', pids], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, [RUN_MARKER_VAR]: newRunMarker(scope, 'a') },
    });
    leader.unref();
    trackStray(leader.pid as number);
    await waitFor(() => {
      try {
        return /^\d+\n/.test(readFileSync(pids, 'utf8'));
      } catch {
        return false;
      }
    }, 'the orphan to start');
    const [orphan] = pidsWritten(pids);
    const killed = await killRun({ marker: `${scope}:` });
    expect(killed).toContain(orphan);
    await waitFor(() => !running(orphan as number) && !running(leader.pid as number), 'the marked process and the orphan to be gone');
  });
});
