// `land gc`: plans the prune from the records and this clone's own metrics rows (plan.ts; a
// published row may be forged, and must not name a train to delete), and asks the store to remove
// it (a queue in a remote: one atomic push, then the cache).
import { parseMetricsRows, type QueueStore } from '../store/index.js';
import { planPrune } from './plan.js';

export interface GcOutcome {
  olderThan: string;
  /** Jobs that finished before this time were pruned. */
  cutoff: string;
  jobs: string[];
  trains: string[];
  /** Refs the remote push deleted (0 for a clone's own queue). */
  remoteRefs: number;
}

export async function runGc(store: QueueStore, opts: { olderThan: string; spanMs: number; now: number }): Promise<GcOutcome> {
  const cutoff = opts.now - opts.spanMs;
  const { jobs } = store.listJobs({ check: 'shape' });
  const { rows } = parseMetricsRows(store.readOwnMetrics().rows);
  const plan = planPrune(jobs, rows, cutoff);
  const result = plan.jobs.length || plan.trains.length ? await store.prune(plan) : { jobs: [], trains: [], remoteRefs: 0 };
  return { olderThan: opts.olderThan, cutoff: new Date(cutoff).toISOString(), ...result };
}

export function gcText(outcome: GcOutcome, remote: string | null): string {
  if (!outcome.jobs.length && !outcome.trains.length) return `nothing to prune: no job finished before ${outcome.cutoff} (older than ${outcome.olderThan})`;
  const refs = remote ? ` (${outcome.remoteRefs} ref${outcome.remoteRefs === 1 ? '' : 's'} deleted on ${remote})` : '';
  const trains = `${outcome.trains.length} train${outcome.trains.length === 1 ? '' : 's'}`;
  return `pruned ${outcome.jobs.length} finished job${outcome.jobs.length === 1 ? '' : 's'} and the logs of ${trains}, all older than ${outcome.olderThan}${refs}`;
}
