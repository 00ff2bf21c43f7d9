// Fetching a remote queue: its refs/land/* and the target, in one git fetch. The refs it brought
// are kept for the next push (its leases) and the next materialize.
import { LandError } from '../../errors.js';
import { fetchRefs, listRefs, RemoteUnreachable } from '../../git/index.js';
import { nextRetry, unreachableReason, type OutageNotice } from '../outage.js';
import { emptyQueueRefs, misfitWarning, parseQueueRefs, remoteRefs, type QueueRefs, type QueueRemote } from '../remoteLayout.js';
import { remoteError } from './errors.js';
import { pauseUnless } from './transaction.js';

export class QueueFetcher {
  refs: QueueRefs = emptyQueueRefs();
  /** Misfit job refs already warned about (id and object), each said once per process. */
  private readonly misfitsSaid = new Set<string>();

  constructor(
    private readonly queue: QueueRemote,
    private readonly outage: OutageNotice,
    /** Where this clone keeps its view of the target (refs/remotes/<remote>/<target>). */
    private readonly targetRef: string,
  ) {}

  /** One fetch of the queue refs and the target. */
  async fetch(): Promise<void> {
    const { cwd, remote, target } = this.queue;
    const names = remoteRefs(remote);
    try {
      await fetchRefs(cwd, remote, [`+refs/land/*:${names.local}*`, `+refs/heads/${target}:${this.targetRef}`]);
      this.outage.reached();
    } catch (error) {
      if (error instanceof RemoteUnreachable && /couldn't find remote ref/.test(error.reason)) {
        throw new LandError('config', `the remote ${remote} has no branch ${target}`, { hint: `push ${target} to ${remote} first` });
      }
      throw remoteError(error);
    }
    this.refs = parseQueueRefs(remote, await listRefs(this.queue.cwd, names.local));
    // A job ref that names no commit holds no record: it is skipped, and said once per object (a
    // --watch drainer fetches every pollSeconds: anyone who can push must not fill its log).
    for (const [id, misfit] of this.refs.misfits) {
      const seen = `${id} ${misfit.oid}`;
      if (this.misfitsSaid.has(seen)) continue;
      this.misfitsSaid.add(seen);
      process.stderr.write(`${misfitWarning(remote, id, misfit)}\n`);
    }
  }

  /**
   * One fetch. A drainer holding the lease (`holding()`) rides out an unreachable remote
   * (lib/store/outage.ts): it tries again with a back-off until the lease's time has passed since
   * the remote last answered, then gives up (exit 13). Anyone else fails at once. When `stop()`
   * holds it stops trying and the cache stays as it was (the caller stops at its boundary).
   */
  async fetchRidingOutage(stop: () => boolean, holding: () => boolean): Promise<void> {
    for (let failures = 1; ; failures += 1) {
      const started = this.outage.clock();
      try {
        await this.fetch();
        return;
      } catch (error) {
        const reason = unreachableReason(error);
        if (reason === null || !holding()) throw error;
        const step = nextRetry(failures, this.outage.sinceContactMs(), this.queue);
        if (step.kind === 'give_up') throw this.outage.gaveUp(reason);
        this.outage.unreachable(reason, started);
        await pauseUnless(step.waitMs, stop);
        if (stop()) return;
      }
    }
  }
}
