// A train's landing as the landing code hands it to the store (QueueStore.land), and what comes
// back. A clone's own queue lands with a compare-and-swap of the target ref (local/landByCas.ts);
// a queue kept in a remote with one atomic push of the target and the landed records
// (remoteStore.ts). The landing code settles what comes back the same way for both.
export type LandOutcome =
  | { kind: 'landed'; warning: string | null }
  | { kind: 'lost'; actual: string | null }
  | { kind: 'target_dirty'; worktree: string }
  /** Not tried: land's hook protecting the target would not run (lib/hooks/guard.ts); `message` says why. */
  | { kind: 'hook_off'; message: string };

export interface TrainLanding {
  cwd: string;
  /** The target branch, moved from the train's base to its commit. */
  target: string;
  base: string;
  commit: string;
  /** The reflog message of the target's move. */
  message: string;
  /** Before a compare-and-swap: null, or why land's hook protecting the target would not hold. */
  hookOff: () => Promise<string | null>;
  /** Before a compare-and-swap: marks the members landing (journal first), so recovery finds them. */
  markLanding: () => Promise<unknown>;
  /** Records the members landed, under the queue lock: a remote queue pushes these changes with the target. */
  recordLanded: () => unknown;
}

export type LandingResult =
  /** The target was moved by compare-and-swap, or not: the settlement of `outcome` records the members. */
  | { kind: 'tried'; outcome: LandOutcome }
  /** The target moved in one push with recordLanded's changes: the members are recorded already. */
  | { kind: 'pushed' }
  /** The push was refused (the target or a member moved meanwhile): nothing moved anywhere; the queue was fetched. */
  | { kind: 'raced' };

/** Arms and disarms the protecting hook (the store's token methods). */
export interface TokenIssuer {
  writeToken(): string;
  clearToken(token?: string): void;
}

/**
 * Runs `move` with a landing token made for it alone: only the token's hash is on disk while it
 * runs, the token itself is in no file and in no environment but the one `move` gives its git
 * process, and it is void as soon as `move` returns (or this process dies).
 */
export async function withLandingToken<T>(issuer: TokenIssuer, move: (env: Record<string, string>) => Promise<T>): Promise<T> {
  const token = issuer.writeToken();
  try {
    return await move({ LAND_TOKEN: token });
  } finally {
    issuer.clearToken(token);
  }
}
