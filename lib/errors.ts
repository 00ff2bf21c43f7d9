// One error type for everything a user can cause or fix. The CLI's main (lib/cli/main.ts) is the only
// place that turns an error into an exit status. A command that ends without an error but not in
// success (`land run` stopped, `land repro`'s verdict, `land prove` stopped) returns its status
// from EXIT_CODES, and lib/cli/action.ts sets it. The table is in docs/exit-codes.md.

export const EXIT_CODES = {
  ok: 0,
  internal: 1,
  usage: 2,
  config: 3,
  not_found: 4,
  state: 5,
  busy: 6,
  git: 7,
  corrupt: 8,
  not_landed: 9,
  /** `land run` stopped: the target itself fails its gates; every job stays queued. */
  target_red: 10,
  /** A write failed for lack of space (ENOSPC) or quota (EDQUOT): nothing was half-written. */
  no_space: 11,
  disagreement: 12,
  /** The queue's remote (a remote queue, docs/remote.md) could not be reached: nothing was changed. */
  remote: 13,
  /** Gates must run in a sandbox (sandbox.mode required) and this machine cannot make one: nothing ran, nothing failed. */
  no_sandbox: 14,
  /** `land run --fail-on-failed`: the drain ended and a job failed in this run (for CI). */
  jobs_failed: 15,
  interrupted: 130,
} as const;

export type ErrorCode = Exclude<keyof typeof EXIT_CODES, 'ok'>;

export class LandError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  /** Extra lines (for example one per invalid policy key) printed after the message. */
  readonly details: readonly string[];

  constructor(code: ErrorCode, message: string, opts: { hint?: string; details?: readonly string[]; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'LandError';
    this.code = code;
    this.hint = opts.hint;
    this.details = opts.details ?? [];
  }
}

export function exitCodeFor(error: unknown): number {
  if (error instanceof LandError) return EXIT_CODES[error.code];
  return EXIT_CODES.internal;
}

export function isLandError(error: unknown, code?: ErrorCode): error is LandError {
  return error instanceof LandError && (code === undefined || error.code === code);
}
