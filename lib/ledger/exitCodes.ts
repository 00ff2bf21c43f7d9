// `land batch` has its own exit codes, separate from the table of the other commands: a gate stage
// maps them onto a verdict (2 fail without bisection, 3 and 4 requeue, 5 fail).
import { constants } from 'node:os';

export const BATCH_EXIT = {
  providerRefused: 2,
  noLane: 3,
  noLedgerDir: 4,
  noLedgerLine: 5,
} as const;

/** A process's status as a shell reports it: its exit code, or 128 + the signal's number. */
export function statusOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal ? constants.signals[signal] : undefined;
  return number === undefined ? 1 : 128 + number;
}

/** An interrupted batch never reports success, even when the command exited 0 on the signal. */
export function finalStatus(status: number, interruptedBy: NodeJS.Signals | null): number {
  return interruptedBy !== null && status === 0 ? statusOf(null, interruptedBy) : status;
}
