// Synthetic Histories for the pure tests of `land tune` (no git, no files): job records with only
// what the replay reads, and metrics rows with a gate time.
import { culpritPositions } from '../../bench/sweep.js';
import type { History, HistoryTrain } from '../../lib/stats/history.js';
import type { JobRecord } from '../../lib/store/index.js';

export const T0 = Date.parse('2026-11-01T09:00:00Z');

export interface SyntheticJob {
  /** Seconds after T0. */
  at: number;
  state: 'landed' | 'failed' | 'canceled' | 'queued';
  reason?: string | null;
}

export function job(i: number, spec: SyntheticJob): JobRecord {
  const id = `j-20261101-${String(i).padStart(4, '0')}`;
  const record = { id, order: id, state: spec.state, reason: spec.reason ?? null, timestamps: { queued: new Date(T0 + spec.at * 1000).toISOString() } };
  return record as unknown as JobRecord;
}

export function train(gateSeconds: number, extra: Partial<HistoryTrain> = {}): HistoryTrain {
  return { train: 't', members: [], verdict: 'PASS', at: new Date(T0).toISOString(), time: T0, gateSeconds, cached: false, ...extra };
}

export function history(jobs: readonly JobRecord[], trains: readonly HistoryTrain[] = []): History {
  return {
    readAt: T0 + 86_400_000,
    since: null,
    problems: [],
    jobs: [...jobs],
    corruptJobs: 0,
    trains: [...trains],
    unreadableTrains: 0,
    window: [],
    windowNow: null,
    windowFrom: 'here',
    voided: [],
    abandoned: [],
  };
}

/** n jobs submitted every `every` seconds, round(rate x n) of them culprits (seeded positions), trains of `gateSeconds`. */
export function queueHistory(n: number, rate: number, opts: { every: number; gateSeconds: number; seed?: number }): History {
  const culprits = new Set(culpritPositions(n, Math.round(rate * n), opts.seed ?? 7));
  const jobs = Array.from({ length: n }, (_, i) =>
    job(i + 1, { at: i * opts.every, state: culprits.has(i + 1) ? 'failed' : 'landed', reason: culprits.has(i + 1) ? 'gate' : null }),
  );
  return history(jobs, [train(opts.gateSeconds)]);
}
