// Runs a gate (or a refresh command) in its own process group, tagged with a run marker
// (LAND_GATE_RUN, lib/proc/descendants.ts) that everything it starts inherits, so a timeout or a
// stop can kill everything it started and nothing is left behind: as soon as the command exits,
// whatever it left running is killed too, in its group or not (a `setsid` daemon included), and
// the run never waits on an output pipe more than a moment past that. The command's own exit
// status is the outcome. The output goes to the train's log (redacted there); the last stderr
// line is remembered besides.
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';
import { markerScope, newRunMarker, RUN_MARKER_VAR, RunContainment, startProcess, type Ending } from '../../proc/index.js';
import { sandboxFailed, withSandbox, type SandboxSpec } from '../../proc/sandbox/index.js';
import { LastLine } from './lastLine.js';

export type GroupOutcome = Ending;

/** How the command ended, and the last non-empty line it wrote to stderr (null when none). */
export type GroupResult = GroupOutcome & { lastStderrLine: string | null };

export interface GroupCommand {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutSeconds: number;
  output: Writable;
  signal?: AbortSignal;
  /**
   * `cwd` is a worktree `land` made for this run (under the state folder): at the end, every
   * process still working inside it is taken as the command's and killed too, even one that
   * cleared its environment. Never set for a folder a user may work in.
   */
  ownsCwd?: boolean;
  /** Run inside this sandbox (docs/sandbox.md); absent or null: as a plain child of the drainer. */
  sandbox?: SandboxSpec | null;
  /** Written to the command's standard input, which is then closed (a notifier's event); absent: no stdin. */
  input?: string;
}

const KILL_GRACE_MS = 2_000;
/** After the command exits (and what it left is killed), how long its output pipes may stay open. */
const OUTPUT_GRACE_MS = 2_000;

/**
 * The marker of one run in `worktree`: its scope is the worktree's parent folder, so every gate a
 * drainer runs in `<state>/trains/<id>` carries the scope recovery looks for (killLeftGates).
 */
export function gateRunMarker(worktree: string): string {
  return newRunMarker(markerScope(dirname(worktree)), `run-${process.pid}`);
}

/** How a command ended, for logs and messages: "exit 1", "timed out", "signal SIGKILL". */
export function outcomeText(outcome: GroupOutcome): string {
  switch (outcome.kind) {
    case 'exited':
      return `exit ${outcome.code}`;
    case 'signaled':
      return `signal ${outcome.signal}`;
    case 'timeout':
      return 'timed out';
    case 'stopped':
      return 'stopped';
    case 'spawn_failed':
      return `could not start: ${outcome.message}`;
    default: {
      const never: never = outcome;
      return String(never);
    }
  }
}

export async function runInGroup(cmd: GroupCommand): Promise<GroupResult> {
  // The output goes to the log whole; only the last stderr line is remembered besides, for
  // the message of a gate that could not start ("sh: 1: mytset: not found").
  const stderrTail = new LastLine();
  const marker = gateRunMarker(cmd.cwd);
  const env = { ...cmd.env, [RUN_MARKER_VAR]: marker };
  if (!cmd.sandbox) return { ...(await runMarked(cmd, cmd.argv, env, marker, stderrTail)), lastStderrLine: stderrTail.last() };
  let status = '';
  const ending = await withSandbox(cmd.sandbox, cmd.argv, env, (inside) =>
    runMarked(cmd, inside.argv, inside.env, marker, stderrTail, (chunk) => {
      status += String(chunk);
    }),
  );
  // bwrap exits 1 when it cannot make the sandbox: nothing of the change ran (infra, not a FAIL).
  if (ending.kind === 'exited' && sandboxFailed(status)) {
    const said = stderrTail.last();
    return {
      kind: 'spawn_failed',
      message: `the sandbox could not be made${said ? `: ${said}` : ''}`,
      errno: null,
      seconds: ending.seconds,
      lastStderrLine: said,
    };
  }
  return { ...ending, lastStderrLine: stderrTail.last() };
}

/** Runs the command (or the sandbox that runs it) in its group, tagged with its run marker. */
async function runMarked(
  cmd: GroupCommand,
  argv: readonly string[],
  env: Record<string, string>,
  marker: string,
  stderrTail: LastLine,
  fd3?: (chunk: Buffer) => void,
): Promise<Ending> {
  const run = startProcess({
    fd3,
    stdin: cmd.input === undefined ? 'ignore' : 'pipe',
    argv,
    cwd: cmd.cwd,
    env,
    stdout: (chunk) => cmd.output.write(chunk),
    stderr: (chunk) => {
      cmd.output.write(chunk);
      stderrTail.write(chunk);
    },
    timeoutMs: cmd.timeoutSeconds * 1000,
    signal: cmd.signal,
    killGraceMs: KILL_GRACE_MS,
    killGroupOnExit: true,
    contain: new RunContainment({ marker, cwdUnder: cmd.ownsCwd ? cmd.cwd : undefined }),
    outputGraceMs: OUTPUT_GRACE_MS,
  });
  if (cmd.input !== undefined) run.stdin?.end(cmd.input);
  return (await run.ended).ending;
}
