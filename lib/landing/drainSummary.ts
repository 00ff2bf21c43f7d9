// What a drain did, said when it ends (`land run`'s last line, or its JSON summary): read from the
// records the journal names since the drain started, so a long history is not read again.
import { jobsChangedSince, jobTarget, runnableJobs } from '../queue/index.js';
import type { QueueStore } from '../store/index.js';
import { currentWindow } from './window.js';

export interface DrainSummary {
  type: 'summary';
  trains: number;
  gateRuns: number;
  /** Landed by this drain's own compare-and-swap. */
  landed: string[];
  /**
   * Found already in the target when their train was built (merged outside the queue, or put there
   * by someone who moved the target, a gate included): recorded landed via `contained`, never
   * tested or landed by land, so not counted as landed.
   */
  contained: string[];
  failed: string[];
  canceled: string[];
  queued: string[];
  window: number;
  stopped: null | { why: string; message: string };
}

/** Why the drain stopped early; null when it ran out of work (or, with --watch, was told to stop while idle). */
export type Stopped = DrainSummary['stopped'];

export interface DrainEnd {
  store: QueueStore;
  counters: { trains: number; gateRuns: number };
  /** The drain's target: the jobs still queued for it are listed. */
  target: string;
  /** When the drain started (ISO): only what changed since counts. */
  startedAt: string;
  /** The journal's size when the drain started. */
  journalStart: number;
  /** batch.max of the policy in force at the end (the window is clamped to it). */
  max: number;
  stopped: Stopped;
}

export function summarizeDrain(end: DrainEnd): DrainSummary {
  const { store, counters, target, startedAt, stopped } = end;
  const jobs = jobsChangedSince(store, end.journalStart);
  const since = (stamp: string | undefined) => stamp !== undefined && stamp >= startedAt;
  return {
    type: 'summary',
    trains: counters.trains,
    gateRuns: counters.gateRuns,
    landed: jobs.filter((j) => j.state === 'landed' && j.landedVia !== 'contained' && since(j.timestamps.landed)).map((j) => j.id),
    contained: jobs.filter((j) => j.state === 'landed' && j.landedVia === 'contained' && since(j.timestamps.landed)).map((j) => j.id),
    failed: jobs.filter((j) => j.state === 'failed' && since(j.timestamps.failed)).map((j) => j.id),
    canceled: jobs.filter((j) => j.state === 'canceled' && since(j.timestamps.canceled)).map((j) => j.id),
    queued: runnableJobs(jobs.filter((job) => jobTarget(job, target) === target)).map((j) => j.id),
    window: currentWindow(store, end.max),
    stopped,
  };
}
