// Which drain events a policy's `notify` commands hear, and what each is told (pure): one
// notification per landed or failed job, one when the drain stops early, one per job `land
// reconcile` finds uncertain. The payload's schema is lib/store/formats/notification.ts.
import type { NotifyEntry } from '../../config/index.js';
import type { JobRecord, Notification, NotificationEvent } from '../../store/index.js';
import type { DrainEvent } from '../events.js';
import { isLandError } from '../../errors.js';

export interface NotifyFacts {
  target: string;
  /** When the event was seen (ISO). */
  at: string;
  /** A job's record as it is now (after the change the event reports), or null when it cannot be read. */
  job: (id: string) => JobRecord | null;
}

/** The commands of `entries` that run for `event`, in policy order. */
export function notifiersFor(entries: readonly NotifyEntry[], event: NotificationEvent): NotifyEntry[] {
  return entries.filter((entry) => entry.on.includes(event));
}

function jobPart(job: JobRecord): NonNullable<Notification['job']> {
  const { timestamps } = job;
  return {
    id: job.id,
    branch: job.branch,
    tip: job.tip,
    title: job.title,
    submitter: job.submitter,
    state: job.state,
    reason: job.state === 'landed' ? (job.landedVia ?? job.reason) : job.reason,
    message: job.error?.message ?? null,
    queuedAt: timestamps.queued,
    endedAt: timestamps.landed ?? timestamps.failed ?? null,
  };
}

/**
 * The gate that failed a job: the one the `failed` event names (a verdict from the cache included),
 * else the last gate of its train that did not exit 0; its log and the lines the drain kept of its
 * output (`gateLogTail`). Null when no gate decided the failure (a conflict, a lost compare-and-swap).
 */
export function failedGateOf(job: JobRecord, said: { gate?: string; status?: string } = {}): Notification['gate'] {
  const gate = job.gate;
  const results = gate?.mode === 'full' || gate?.mode === 'selective' ? (gate.results ?? []) : [];
  const failing = [...results].reverse().find((result) => result.status !== 'exit 0') ?? null;
  const name = said.gate ?? failing?.name ?? null;
  if (name === null && !job.gateLogTail) return null;
  return { name, status: said.status ?? failing?.status ?? null, log: job.gateLog, excerpt: job.gateLogTail ?? [] };
}

function about(event: NotificationEvent, job: JobRecord, facts: NotifyFacts, more: Partial<Notification> = {}): Notification {
  return { version: 1, event, at: facts.at, target: facts.target, job: jobPart(job), train: null, commit: null, gate: null, stopped: null, ...more };
}

const records = (ids: readonly string[], facts: NotifyFacts) => ids.map((id) => facts.job(id)).filter((job): job is JobRecord => job !== null);

/** The notifications a drain event stands for; none for most events. */
export function notificationsOf(event: DrainEvent, facts: NotifyFacts): Notification[] {
  switch (event.type) {
    case 'landed':
      return records(event.members, facts).map((job) => about('landed', job, facts, { train: event.train, commit: event.commit }));
    case 'recovered': // landed by a drainer that died before it could say so
      return event.to === 'landed' ? records([event.job], facts).map((job) => about('landed', job, facts, { train: event.train, commit: job.train })) : [];
    case 'failed':
      return records([event.job], facts).map((job) => about('failed', job, facts, { train: job.batch?.train ?? null, gate: failedGateOf(job, event) }));
    default:
      return [];
  }
}

/** The notification of a drain that stopped early (`land run`'s `stopped`). */
export function stoppedNotification(stopped: { why: string; message: string }, facts: Omit<NotifyFacts, 'job'>): Notification {
  return { version: 1, event: 'stopped', at: facts.at, target: facts.target, job: null, train: null, commit: null, gate: null, stopped };
}

/**
 * Why an error that ends `land run` stopped the drain, for `stopped` notifiers: a LandError's code
 * (`remote`, `git`, `no_space`...), any other error `internal` (a bug), with its one-line message.
 */
export function stoppedByError(error: unknown): { why: string; message: string } {
  if (isLandError(error)) return { why: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { why: 'internal', message: `internal error: ${message.split('\n')[0] ?? ''}` };
}

/** The notification of a job `land reconcile` found uncertain. */
export function uncertainNotification(job: JobRecord, facts: Omit<NotifyFacts, 'job'>): Notification {
  return about('uncertain', job, { ...facts, job: () => job });
}
