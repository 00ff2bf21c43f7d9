// `land gc`: plans the prune from the records and this clone's own metrics rows (plan.ts; a
// published row may be forged, and must not name a train to delete), adds the logs no row names
// (strayLogs.ts), and asks the store to remove it (a queue in a remote: one atomic push, then the cache).
import { basename } from 'node:path';
import { parseMetricsRows, type JournalEntry, type QueueStore } from '../store/index.js';
import { planPrune, type PrunePlan } from './plan.js';
import { strayTrainLogs } from './strayLogs.js';

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
  const { jobs, corrupt } = store.listJobs({ check: 'shape' });
  const { rows } = parseMetricsRows(store.readOwnMetrics().rows);
  const unreadable = new Set(corrupt.map((record) => basename(record.file, '.json')));
  // Only this clone's own logs: a published copy is another drainer's evidence, its gc's to prune.
  const plan = planPrune(jobs, rows, cutoff, { holds: (train) => store.hasOwnLog(train), unreadable });
  const recorded = new Set([...jobs.map((job) => job.id), ...unreadable]);
  plan.trains = [...plan.trains, ...strayLogsOf(store, plan, { recorded, cutoff })].sort();
  const result = plan.jobs.length || plan.trains.length ? await store.prune(plan) : { jobs: [], trains: [], remoteRefs: 0 };
  return { olderThan: opts.olderThan, cutoff: new Date(cutoff).toISOString(), ...result };
}

/**
 * The logs of the pruned jobs' trains and target checks that no metrics row names (strayLogs.ts):
 * one scan of the journal. A job with no record any more (another clone's gc pruned it) counts as
 * pruned for the trains it started before the cutoff, so their logs do not stay for ever.
 */
function strayLogsOf(store: QueueStore, plan: PrunePlan, known: { recorded: ReadonlySet<string>; cutoff: number }): string[] {
  const pruned = new Map<string, JournalEntry[]>();
  const kept = new Map<string, JournalEntry[]>();
  const gone = new Set(plan.jobs);
  const prunedBefore = (entry: JournalEntry) => entry.job !== null && !known.recorded.has(entry.job) && Date.parse(entry.at) < known.cutoff;
  for (const entry of store.scanJournal('"train_started"')) {
    if (entry.job === null || entry.event !== 'train_started') continue;
    const side = gone.has(entry.job) || prunedBefore(entry) ? pruned : kept;
    side.set(entry.job, [...(side.get(entry.job) ?? []), entry]);
  }
  return strayTrainLogs({ pruned, kept, planned: plan.trains, hasLog: (train) => store.hasOwnLog(train) });
}

export function gcText(outcome: GcOutcome, remote: string | null): string {
  if (!outcome.jobs.length && !outcome.trains.length) return `nothing to prune: no job finished before ${outcome.cutoff} (older than ${outcome.olderThan})`;
  const refs = remote ? ` (${outcome.remoteRefs} ref${outcome.remoteRefs === 1 ? '' : 's'} deleted on ${remote})` : '';
  const trains = `${outcome.trains.length} train${outcome.trains.length === 1 ? '' : 's'}`;
  return `pruned ${outcome.jobs.length} finished job${outcome.jobs.length === 1 ? '' : 's'} and the logs of ${trains}, all older than ${outcome.olderThan}${refs}`;
}
