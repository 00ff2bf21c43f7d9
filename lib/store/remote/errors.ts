// How a queue kept in a remote reports what went wrong with the remote: a lost race is a value
// the landing settles (QueueRaced), anything else an error with a hint.
import { LandError } from '../../errors.js';
import { LocalRefsBusy, RemoteUnreachable } from '../../git/index.js';

/** A push that lost its race (a landing whose target or members moved): nothing moved anywhere. */
export class QueueRaced extends Error {
  constructor(readonly refs: readonly { ref: string; why: string }[]) {
    super(`the remote refused the push: ${refs.map((r) => `${r.ref} ${r.why}`).join('; ')}`);
    this.name = 'QueueRaced';
  }
}

export function remoteError(error: unknown): unknown {
  if (error instanceof LocalRefsBusy) {
    return new LandError('busy', error.message, {
      hint: 'nothing was changed; run the command again (if no git or land command is running in this clone, remove the .lock file git named)',
    });
  }
  if (error instanceof RemoteUnreachable) {
    return new LandError('remote', `the queue's remote ${error.remote} could not be reached: ${error.reason}`, {
      hint: 'nothing was changed; check the network and `git remote -v`, then run the command again',
      cause: error,
    });
  }
  return error;
}

export function describeRefused(refs: readonly { ref: string; why: string }[]): string {
  return refs.map((r) => `${r.ref} ${r.why}`).join('; ');
}

/**
 * A refusal that is not a lost race (a hook declined, no permission, a ref the server hides) is
 * no use trying again: it is the server's answer, reported as such (exit 13).
 */
export function assertRaceOnly(remote: string, refs: readonly { ref: string; why: string }[]): void {
  const RACE =
    /stale info|fetch first|non-fast-forward|atomic push failed|atomic transaction failed|failed to update ref|cannot lock ref|incorrect old value|reference already exists|failed to lock/;
  const refused = refs.filter((r) => !RACE.test(r.why));
  if (!refused.length) return;
  throw new LandError('remote', `the remote ${remote} refused the push: ${describeRefused(refused)}`, {
    hint: 'the server declined it (a hook, a protected ref or missing rights): see docs/team.md for what the queue needs',
  });
}
