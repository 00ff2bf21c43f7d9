// publish.auto: after a landing, push the target to the remote once per train, with a lease on
// the remote tip just read, and only as a fast-forward. A rejected push is reported and tried
// again after the next landing; it is never forced.
import type { Policy } from '../../config/index.js';
import { GitError, isAncestor, pushWithLease, remoteBranchTip } from '../../git/index.js';
import { nowIso } from '../../queue/index.js';
import type { QueueStore } from '../../store/index.js';
import { withLandingToken } from '../../store/index.js';

export type PublishOutcome = { kind: 'pushed'; remote: string } | { kind: 'rejected'; remote: string; message: string } | { kind: 'off' };

export async function publishLanding(opts: { cwd: string; store: QueueStore; policy: Policy; target: string; commit: string }): Promise<PublishOutcome> {
  if (!opts.policy.publish.auto) return { kind: 'off' };
  const remote = opts.policy.publish.remote ?? opts.policy.remote;
  // A queue kept in that very remote has landed there already: the landing was the push.
  if (opts.store.keptIn(remote)) return { kind: 'off' };
  let outcome: PublishOutcome;
  try {
    const remoteTip = await remoteBranchTip(opts.cwd, remote, opts.target);
    if (remoteTip && !(await isAncestor(opts.cwd, remoteTip, opts.commit).catch(() => false))) {
      outcome = { kind: 'rejected', remote, message: `${remote}/${opts.target} has commits the landed target does not contain (fetch and reconcile by hand)` };
    } else {
      // A token of its own for the push (a pre-receive hook on this machine checks it like the
      // local hook does); void once the push is over.
      const pushed = await withLandingToken(opts.store, (env) => pushWithLease(opts.cwd, remote, opts.target, opts.commit, remoteTip, env));
      outcome = pushed.kind === 'pushed' ? { kind: 'pushed', remote } : { kind: 'rejected', remote, message: pushed.message };
    }
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    outcome = { kind: 'rejected', remote, message: error.message };
  }
  opts.store.writePublishState({
    at: nowIso(),
    remote,
    commit: opts.commit,
    pending: outcome.kind !== 'pushed',
    message: outcome.kind === 'rejected' ? outcome.message : null,
  });
  return outcome;
}
