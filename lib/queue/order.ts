// The landing order, a pure function: urgent jobs first, then halves of a bisected or requeued
// train (they go back to the head of the queue), then everything else by submission order.
import type { JobRecord } from '../store/index.js';

function rank(job: JobRecord): number {
  if (job.priority === 'urgent') return 0;
  if (job.requeued) return 1;
  return 2;
}

export function compareLandingOrder(a: JobRecord, b: JobRecord): number {
  return rank(a) - rank(b) || (a.order < b.order ? -1 : a.order > b.order ? 1 : 0) || (a.id < b.id ? -1 : 1);
}

/** Queued jobs in the order they will ride trains. */
export function runnableJobs(jobs: readonly JobRecord[]): JobRecord[] {
  return jobs.filter((job) => job.state === 'queued').sort(compareLandingOrder);
}

/** Every job for display: running first, then queued in landing order, then the finished ones. */
export function displayOrder(jobs: readonly JobRecord[]): JobRecord[] {
  const running = jobs.filter((job) => job.state === 'in_progress').sort(compareLandingOrder);
  const finished = jobs.filter((job) => job.state !== 'queued' && job.state !== 'in_progress').sort((a, b) => (a.id < b.id ? 1 : -1));
  return [...running, ...runnableJobs(jobs), ...finished];
}
