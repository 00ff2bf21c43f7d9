// What `land tune` replays, read from the recorded History (pure): the decided jobs in the order
// they were submitted, with their submit times, which of them were culprits as the verdicts
// established, and one gate duration for every train. See docs/tune.md "What is replayed".
import { flakeTally } from '../stats/flakeTally.js';
import type { History } from '../stats/history.js';
import { timeOf } from '../stats/history.js';
import type { JobRecord } from '../store/index.js';

/** Failure reasons of a gate's own FAIL verdict (lib/landing/gates/gateRunner.ts GateFail): a job failed alone with one is a culprit. */
export const CULPRIT_REASONS: ReadonlySet<string> = new Set(['gate', 'timeout', 'no_ledger_line', 'refresh']);

/** Below this many decided jobs (landed, or failed as culprits) `land tune` recommends nothing. */
export const MIN_DECIDED = 20;

/** The gate duration assumed when no train of the period ran its gates (only the time figures depend on it). */
export const ASSUMED_GATE_SECONDS = 60;

export interface ReplayJob {
  /** Seconds after the first replayed submission. */
  submitted: number;
  culprit: boolean;
}

export interface ReplayInput {
  /** The replayed jobs in queue order (by submit time, then the queue's order key, then id). */
  jobs: ReplayJob[];
  /** Their ids, in the same order. */
  ids: string[];
  /** Epoch ms of the first replayed submission; null when nothing is replayed. */
  start: number | null;
  landed: number;
  culprits: number;
  /** Jobs of the period not replayed, by why. */
  leftOut: { canceled: number; otherFailures: number; undecided: number; noSubmitTime: number };
  /** The gate time of every replayed train that is not a cached verdict. */
  gate: { seconds: number; source: 'recorded' | 'assumed'; trains: number };
  /**
   * How often a fresh run of a good tree failed, as recorded: per gate, its failed runs of trees a
   * later run passed and of trains cleared by the train behind them, over those and its clean runs;
   * a train fails when any gate does. 0: no flake.
   */
  flakes: { rate: number; flakyRuns: number; cleared: number; passed: number };
}

/** A job that failed alone on its own FAIL verdict (the window's culprit: plan/settlement.ts). */
export function isCulprit(job: JobRecord): boolean {
  return job.state === 'failed' && job.reason !== null && CULPRIT_REASONS.has(job.reason);
}

/** The p-quantile (0 < p <= 1) of ascending values by nearest rank; 0 for none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1] as number;
}

/**
 * The gate time of a train: the median of the recorded trains whose gates ran (not a cached
 * verdict, not a verdict without a gate), in seconds. A train's size barely changes it (the gates
 * run once on the merged tree), so one figure serves every train.
 */
export function gateModel(history: History): ReplayInput['gate'] {
  const seconds = history.trains
    .filter((row) => row.cached !== true && row.gate?.mode !== 'cached' && row.gate?.mode !== 'none')
    .map((row) => row.gateSeconds)
    .filter((value): value is number => typeof value === 'number' && Number.isFinite(value) && value > 0)
    .sort((a, b) => a - b);
  if (!seconds.length) return { seconds: ASSUMED_GATE_SECONDS, source: 'assumed', trains: 0 };
  return { seconds: percentile(seconds, 0.5), source: 'recorded', trains: seconds.length };
}

/** The recorded flake rate of a train's gates (ReplayInput.flakes). */
export function flakeModel(history: History): ReplayInput['flakes'] {
  let clean = 1;
  const sum = { flakyRuns: 0, cleared: 0, passed: 0 };
  // The void rows too, as `land flaky` reads them: a cleared train's row is one.
  for (const gate of flakeTally([...history.trains, ...history.voided], history.jobs).values()) {
    sum.flakyRuns += gate.flakyRuns;
    sum.cleared += gate.cleared;
    sum.passed += gate.passed;
    const failed = gate.flakyRuns + gate.cleared;
    if (failed > 0) clean *= 1 - failed / (failed + gate.passed);
  }
  return { rate: Math.round((1 - clean) * 10_000) / 10_000, ...sum };
}

export function replayInput(history: History): ReplayInput {
  const leftOut = { canceled: 0, otherFailures: 0, undecided: 0, noSubmitTime: 0 };
  const kept: { job: JobRecord; at: number }[] = [];
  for (const job of history.jobs) {
    if (job.state === 'canceled') leftOut.canceled += 1;
    else if (job.state === 'failed' && !isCulprit(job)) leftOut.otherFailures += 1;
    else if (job.state !== 'landed' && job.state !== 'failed') leftOut.undecided += 1;
    else {
      const at = timeOf(job.timestamps.queued);
      if (at === null) leftOut.noSubmitTime += 1;
      else kept.push({ job, at });
    }
  }
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  kept.sort((a, b) => a.at - b.at || text(a.job.order, b.job.order) || text(a.job.id, b.job.id));
  const start = kept[0]?.at ?? null;
  const jobs = kept.map(({ job, at }) => ({ submitted: (at - (start ?? at)) / 1000, culprit: isCulprit(job) }));
  const culprits = jobs.filter((job) => job.culprit).length;
  return {
    jobs,
    ids: kept.map(({ job }) => job.id),
    start,
    landed: jobs.length - culprits,
    culprits,
    leftOut,
    gate: gateModel(history),
    flakes: flakeModel(history),
  };
}
