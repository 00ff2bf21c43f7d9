// What one run of a train's gates on an ssh executor means, from how ssh ended. The remote runner
// exits with one of REMOTE_EXIT's statuses; ssh itself exits 255 when it could not connect or lost
// the connection. Only the remote runner's own FAIL statuses fail the change: anything else about
// the executor (unreachable, connection lost, a runner that could not run, a status it never
// gives) is INFRA for that run, which is retried on another slot (docs/executors.md).
import type { Ending } from '../../proc/runProcess.js';
import type { Verdicted } from '../gates/gateRunner.js';

/** The remote runner's exit statuses (a fixed protocol between the drainer's and the executor's land). */
export const REMOTE_EXIT = {
  pass: 0,
  /** A gate exited non-zero (or was killed by a signal of its own). */
  fail: 1,
  /** A gate ran past its timeoutSeconds; its process group was killed. */
  timeout: 2,
  /** The runner could not run the gates there (no sandbox, the checkout failed, a bad request). */
  infra: 75,
} as const;

/**
 * The runner's side of the protocol: its exit status for the gates' verdict there. A gate that did
 * not start, a batch stage without a lane, a stop (the drainer went away): nothing was tested, 75.
 */
export function runnerExit(run: Verdicted): number {
  switch (run.verdict) {
    case 'PASS':
      return REMOTE_EXIT.pass;
    case 'FAIL':
      return run.failure.kind === 'fail' && run.failure.reason === 'timeout' ? REMOTE_EXIT.timeout : REMOTE_EXIT.fail;
    case 'INFRA':
    case 'STOPPED':
      return REMOTE_EXIT.infra;
    default: {
      const never: never = run;
      return never;
    }
  }
}

/** ssh's own status when it could not connect or the connection failed. */
export const SSH_FAILED = 255;

export type RemoteOutcome =
  | { kind: 'pass' }
  | { kind: 'fail'; reason: 'exit' | 'timeout' }
  /** Not the change's doing; `down`: the executor itself failed (mark it down), not only this run. */
  | { kind: 'infra'; detail: string; down: boolean }
  /** The drainer stopped the run (a speculative train abandoned, a drain stopping): no verdict. */
  | { kind: 'abandoned' };

/** `lastError`: the last line ssh or the runner wrote to stderr, for the INFRA detail. */
export function remoteOutcome(ending: Ending, lastError: string): RemoteOutcome {
  const said = lastError === '' ? '' : `: ${lastError}`;
  switch (ending.kind) {
    case 'exited':
      return exitOutcome(ending.code, said);
    case 'signaled':
      // The local ssh process was killed by someone else: this run is lost, the executor is not at fault.
      return { kind: 'infra', detail: `ssh was killed by ${ending.signal}`, down: false };
    case 'timeout':
      // The drainer's own deadline (the gates' timeouts plus a margin) passed: the executor stopped answering.
      return { kind: 'infra', detail: `the executor did not finish within the gates' timeouts${said}`, down: true };
    case 'stopped':
      return { kind: 'abandoned' };
    case 'spawn_failed':
      return { kind: 'infra', detail: `cannot start ssh: ${ending.errno ?? ending.message}`, down: true };
    default: {
      const never: never = ending;
      return never;
    }
  }
}

function exitOutcome(code: number, said: string): RemoteOutcome {
  switch (code) {
    case REMOTE_EXIT.pass:
      return { kind: 'pass' };
    case REMOTE_EXIT.fail:
      return { kind: 'fail', reason: 'exit' };
    case REMOTE_EXIT.timeout:
      return { kind: 'fail', reason: 'timeout' };
    case REMOTE_EXIT.infra:
      return { kind: 'infra', detail: `the executor could not run the gates${said}`, down: false };
    case SSH_FAILED:
      return { kind: 'infra', detail: `unreachable or connection lost${said}`, down: true };
    default:
      return { kind: 'infra', detail: `the executor's runner exited ${code}, which it never does for a verdict${said}`, down: true };
  }
}
