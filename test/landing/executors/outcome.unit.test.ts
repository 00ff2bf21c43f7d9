// What a remote run means: only the runner's FAIL statuses fail a change; everything else about the
// executor is INFRA for that run (and, when the executor itself failed, marks it down).
import { describe, expect, it } from 'vitest';
import { REMOTE_EXIT, remoteOutcome, runnerExit, SSH_FAILED } from '../../../lib/landing/executors/outcome.js';
import type { Ending } from '../../../lib/proc/runProcess.js';

const exited = (code: number): Ending => ({ kind: 'exited', code, seconds: 1 });

describe('remoteOutcome', () => {
  it('takes the verdict from the remote runner’s exit status', () => {
    expect(remoteOutcome(exited(REMOTE_EXIT.pass), '')).toEqual({ kind: 'pass' });
    expect(remoteOutcome(exited(REMOTE_EXIT.fail), 'gate test failed')).toEqual({ kind: 'fail', reason: 'exit' });
    expect(remoteOutcome(exited(REMOTE_EXIT.timeout), '')).toEqual({ kind: 'fail', reason: 'timeout' });
  });

  it('makes an unreachable executor or a lost connection INFRA and marks it down, never a FAIL', () => {
    expect(remoteOutcome(exited(SSH_FAILED), 'ssh: connect to host b1 port 22: Connection refused')).toEqual({
      kind: 'infra',
      detail: 'unreachable or connection lost: ssh: connect to host b1 port 22: Connection refused',
      down: true,
    });
    expect(remoteOutcome({ kind: 'spawn_failed', message: 'no ssh', errno: 'ENOENT', seconds: 0 }, '')).toMatchObject({ kind: 'infra', down: true });
    expect(remoteOutcome({ kind: 'timeout', seconds: 9, exit: { code: null, signal: 'SIGKILL' } }, '')).toMatchObject({ kind: 'infra', down: true });
    // A status the runner never gives for a verdict (a crashed or different land there): INFRA too.
    for (const code of [3, 127, 137]) expect(remoteOutcome(exited(code), '')).toMatchObject({ kind: 'infra', down: true });
  });

  it('keeps the executor up when only this run was lost, and gives no verdict for a run the drainer stopped', () => {
    expect(remoteOutcome(exited(REMOTE_EXIT.infra), 'no sandbox')).toEqual({
      kind: 'infra',
      detail: 'the executor could not run the gates: no sandbox',
      down: false,
    });
    expect(remoteOutcome({ kind: 'signaled', signal: 'SIGKILL', seconds: 1 }, '')).toMatchObject({ kind: 'infra', down: false });
    expect(remoteOutcome({ kind: 'stopped', seconds: 1, exit: { code: null, signal: 'SIGTERM' } }, '')).toEqual({ kind: 'abandoned' });
  });
});

describe('runnerExit', () => {
  const fail = (reason: 'gate' | 'timeout' | 'no_ledger_line') => ({
    verdict: 'FAIL' as const,
    failure: { kind: 'fail' as const, reason, gate: 'test', status: 'exit 1' },
  });

  it('gives the status the drainer reads the same verdict from', () => {
    expect(runnerExit({ verdict: 'PASS', failure: null })).toBe(REMOTE_EXIT.pass);
    expect(remoteOutcome(exited(runnerExit(fail('gate'))), '')).toEqual({ kind: 'fail', reason: 'exit' });
    expect(remoteOutcome(exited(runnerExit(fail('no_ledger_line'))), '')).toEqual({ kind: 'fail', reason: 'exit' });
    expect(remoteOutcome(exited(runnerExit(fail('timeout'))), '')).toEqual({ kind: 'fail', reason: 'timeout' });
    const refused = { verdict: 'FAIL' as const, failure: { kind: 'refused' as const, reason: 'policy_refused' as const, gate: 'b', status: 'exit 2' } };
    expect(runnerExit(refused)).toBe(REMOTE_EXIT.fail);
  });

  it('says nothing was tested for a gate that never started or a run the drainer left: INFRA, the executor up', () => {
    const infra = { verdict: 'INFRA' as const, failure: { kind: 'infra' as const, reason: 'gate_not_started' as const, gate: 't', status: 'exit 127' } };
    expect(remoteOutcome(exited(runnerExit(infra)), '')).toMatchObject({ kind: 'infra', down: false });
    expect(runnerExit({ verdict: 'STOPPED', failure: { kind: 'stopped', gate: 't' } })).toBe(REMOTE_EXIT.infra);
  });
});
