// The job figures of `land stats` (figures.ts): counts by state, failures by reason, culprits, and
// the time from submission to landing split into waiting and gating. Pure.
import type { JobRecord } from '../store/index.js';
import { timeOf, type HistoryTrain } from './history.js';
import { distribution, type Distribution } from './percentile.js';

/**
 * The reasons of a job failed by its own FAIL verdict (a gate's exit status or timeout, a batch
 * stage without its ledger line, a refresh entry): lib/landing/gates/gateRunner.ts GateFail. A
 * failed job with one of them failed alone: a culprit. Not: conflict, infra, cas_lost, policy_refused.
 */
export const CULPRIT_REASONS: readonly string[] = ['gate', 'timeout', 'no_ledger_line', 'refresh'];

export interface JobCounts {
  /** Job records in the period (every state). */
  total: number;
  landed: number;
  failed: number;
  canceled: number;
  /** Now: waiting in the queue, riding a train, set aside by `land reconcile`. */
  queued: number;
  riding: number;
  uncertain: number;
  /** Records that could not be read (counted, not in any other figure). */
  corrupt: number;
  /** Failed jobs by their reason (`gate`, `timeout`, `conflict`, `cas_lost`, `infra`, ...). */
  failedByReason: Record<string, number>;
  /** Landed jobs whose last train was their own fast path (alone, on a proof or a cached PASS). */
  landedFastPath: number;
}

export interface CulpritFigures {
  /** Failed jobs whose reason is one of CULPRIT_REASONS. */
  culprits: number;
  /** Jobs a verdict decided: landed + culprits. */
  decided: number;
  /** culprits / decided; null when nothing was decided. */
  rate: number | null;
}

export interface TimeFigures {
  /** Seconds from submission (or the last reopen: `land retry`, a resubmit) to landing, per landed job. */
  timeToLand: Distribution;
  /** Per landed job: gate seconds of the trains it rode since its submission (metrics rows naming it), at most its time to land. */
  gating: Distribution;
  /** Per landed job: time to land minus gating (never below 0). */
  waiting: Distribution;
  /** Sum of gating / sum of time to land; null with no landed job. */
  gatingShare: number | null;
}

export function jobCounts(jobs: readonly JobRecord[], corrupt: number): JobCounts {
  const counts: JobCounts = {
    ...{ total: jobs.length, landed: 0, failed: 0, canceled: 0, queued: 0, riding: 0, uncertain: 0 },
    ...{ corrupt, failedByReason: {}, landedFastPath: 0 },
  };
  for (const job of jobs) {
    if (job.state === 'landed') {
      counts.landed += 1;
      if (job.fastPath?.alone === true) counts.landedFastPath += 1;
    } else if (job.state === 'failed') {
      counts.failed += 1;
      const reason = job.reason ?? 'unknown';
      counts.failedByReason[reason] = (counts.failedByReason[reason] ?? 0) + 1;
    } else if (job.state === 'canceled') counts.canceled += 1;
    else if (job.state === 'queued') counts.queued += 1;
    else if (job.state === 'in_progress') counts.riding += 1;
    else if (job.state === 'uncertain') counts.uncertain += 1;
  }
  counts.failedByReason = sortedRecord(counts.failedByReason);
  return counts;
}

/** A record's keys by count (highest first), then by name. */
export function sortedRecord(record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
}

export function culpritFigures(counts: JobCounts): CulpritFigures {
  const culprits = CULPRIT_REASONS.reduce((sum, reason) => sum + (counts.failedByReason[reason] ?? 0), 0);
  const decided = counts.landed + culprits;
  return { culprits, decided, rate: decided ? round4(culprits / decided) : null };
}

const round4 = (value: number) => Math.round(value * 10_000) / 10_000;

/** By job id: the trains (metrics rows) that name it as a member, as [time, gate seconds]. */
export function gateSecondsByJob(trains: readonly HistoryTrain[]): Map<string, [number, number][]> {
  const byJob = new Map<string, [number, number][]>();
  for (const train of trains) {
    const seconds = typeof train.gateSeconds === 'number' && train.gateSeconds > 0 ? train.gateSeconds : 0;
    for (const id of train.members) {
      const rode = byJob.get(id);
      if (rode) rode.push([train.time, seconds]);
      else byJob.set(id, [[train.time, seconds]]);
    }
  }
  return byJob;
}

/** Gate seconds of the trains judged at or after `from` (epoch ms): a landed job rides no train after its landing. */
function gatedSince(rode: readonly [number, number][] | undefined, from: number): number {
  let sum = 0;
  for (const [time, seconds] of rode ?? []) if (time >= from) sum += seconds;
  return sum;
}

/** Seconds from submission (or the last reopen) to landing, of each landed job whose record says both. */
export function landTimes(jobs: readonly JobRecord[]): { job: JobRecord; submitted: number; seconds: number }[] {
  const out: { job: JobRecord; submitted: number; seconds: number }[] = [];
  for (const job of jobs) {
    if (job.state !== 'landed') continue;
    const landed = timeOf(job.timestamps.landed);
    const submitted = timeOf(job.timestamps.reopened) ?? timeOf(job.timestamps.queued);
    if (landed === null || submitted === null) continue;
    out.push({ job, submitted, seconds: Math.max(0, (landed - submitted) / 1000) });
  }
  return out;
}

export function timeFigures(jobs: readonly JobRecord[], trains: readonly HistoryTrain[]): TimeFigures {
  const gateSeconds = gateSecondsByJob(trains);
  const toLand: number[] = [];
  const gating: number[] = [];
  const waiting: number[] = [];
  for (const { job, submitted, seconds: total } of landTimes(jobs)) {
    const gated = Math.min(total, gatedSince(gateSeconds.get(job.id), submitted));
    toLand.push(total);
    gating.push(gated);
    waiting.push(total - gated);
  }
  const timeToLand = distribution(toLand);
  const gatingDistribution = distribution(gating);
  return {
    timeToLand,
    gating: gatingDistribution,
    waiting: distribution(waiting),
    gatingShare: timeToLand.sum > 0 ? round4(gatingDistribution.sum / timeToLand.sum) : null,
  };
}
