// Runs a gate (or a refresh command) in its own process group, so a timeout or a stop can kill
// everything it started (grandchildren included) and nothing is left behind: as soon as the
// command exits, whatever it left running in its group is killed too. The output goes to the
// train's log (redacted there); the last stderr line is remembered besides.
import type { Writable } from 'node:stream';
import { runProcess, type Ending } from '../../proc/index.js';
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
}

const KILL_GRACE_MS = 2_000;

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
  const { ending } = await runProcess({
    argv: cmd.argv,
    cwd: cmd.cwd,
    env: cmd.env,
    stdout: (chunk) => cmd.output.write(chunk),
    stderr: (chunk) => {
      cmd.output.write(chunk);
      stderrTail.write(chunk);
    },
    timeoutMs: cmd.timeoutSeconds * 1000,
    signal: cmd.signal,
    killGraceMs: KILL_GRACE_MS,
    killGroupOnExit: true,
  });
  return { ...ending, lastStderrLine: stderrTail.last() };
}
