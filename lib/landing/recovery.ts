// Recovery at the start of every drain: a job left in_progress by a drainer that died is decided
// against git, never guessed. Its train commit and its own tip already in the target → landed; otherwise it goes
// back to the head of the queue at the same attempt. Leftover train worktrees are removed, and
// first whatever a gate of a dead drainer left running is killed, so no old gate still runs in
// (or on) what this drainer does next.
import { discardWorktree, isKnownAncestor } from '../git/index.js';
import { killRun, markerScope } from '../proc/index.js';
import { applyChanges, cancelChanges, landChanges, listActiveJobs, requeueChanges } from '../queue/index.js';
import type { QueueStore, JobRecord } from '../store/index.js';
import type { Emit } from './events.js';
import { followInterruptedLanding } from './followCheckout.js';

/**
 * Kills every process left by a gate this repository's drainers ran: those carrying the marker of
 * a run in the trains folder (lib/landing/gates/processGroup.ts), those working inside that folder,
 * and their descendants. Run with the drain lock held, so none of them is a live drainer's.
 * Returns the pids killed.
 */
export async function killLeftGates(store: QueueStore, emit: Emit): Promise<number[]> {
  const trains = store.paths.trainsDir;
  const killed = await killRun({ marker: `${markerScope(trains)}:`, cwdUnder: trains });
  if (killed.length) {
    emit({ type: 'warning', message: `killed ${killed.length} process(es) a gate had left running (pid ${killed.join(', ')}) before recovering its train` });
  }
  return killed;
}

export async function recoverInProgress(opts: { cwd: string; store: QueueStore; targetTip: string; emit: Emit; target?: string }): Promise<void> {
  await killLeftGates(opts.store, opts.emit);
  const { jobs } = await listActiveJobs(opts.store);
  const stuck = jobs.filter((job) => job.state === 'in_progress');
  const landedBases: string[] = [];
  for (const job of stuck) {
    const train = job.train;
    // The job's own tip too: a train in the target holds it, so this never changes a real landing,
    // but a record forged in a remote queue (in_progress, its train the target's tip) is not landed.
    // (An id that names no commit here is not in the target: a forged record never stops recovery.)
    const landed = train !== null && (await isKnownAncestor(opts.cwd, train, opts.targetTip)) && (await isKnownAncestor(opts.cwd, job.tip, opts.targetTip));
    if (landed) {
      if (job.base) landedBases.push(job.base);
      await applyChanges(
        opts.store,
        landChanges(
          [job],
          {
            via: job.landedVia ?? 'recovered',
            base: job.base ?? opts.targetTip,
            tree: job.tree ?? opts.targetTip,
            train,
            gateLog: job.gateLog,
            gate: job.gate,
            verdict: 'PASS',
          },
          'recovered_landed',
        ),
      );
    } else if (job.stopRequest?.kind === 'cancel') {
      // Canceled while its drainer was gone: the request is honoured, not dropped by the requeue.
      await applyChanges(opts.store, cancelChanges([job]));
      opts.emit({ type: 'canceled', job: job.id });
      continue;
    } else {
      const batch: { id: string; members: JobRecord[]; attempt: number } | undefined = job.batch
        ? { id: job.batch.id, members: stuck.filter((other) => other.batch?.id === job.batch?.id), attempt: job.batch.attempt }
        : undefined;
      await applyChanges(opts.store, requeueChanges([job], { reason: 'recovered', toHead: true, batch }));
    }
    opts.emit({ type: 'recovered', job: job.id, to: landed ? 'landed' : 'queued', train: job.train });
  }
  const followed = opts.target ? await followInterruptedLanding(opts.cwd, opts.target, landedBases) : null;
  if (followed) opts.emit({ type: 'warning', message: `the checkout at ${followed} followed the landing of a stopped drainer` });
  for (const dir of opts.store.listTrainDirs()) {
    opts.store.reopenTrainDir(dir); // a gate may have left folders nobody can enter (chmod 000)
    let removed = true;
    await discardWorktree(opts.cwd, dir, { onCleanup: (left) => (removed = opts.store.removeTrainDir(left)) });
    // Never a reason to stop the queue: the next drain tries again.
    if (!removed) opts.emit({ type: 'warning', message: `could not remove the leftover train folder ${dir}; the next drain tries again` });
  }
}
