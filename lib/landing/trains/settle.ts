// The drainer's changes to member records, each one a journaled transition (lib/queue).
import { applyChanges, nowIso, type JobChange } from '../../queue/index.js';
import type { BatchRef, FileStore, GateTelemetry, JobRecord } from '../../store/index.js';

function batchRef(id: string, members: readonly JobRecord[], attempt: number, job: JobRecord, train?: string): BatchRef {
  return { id, members: members.map((m) => m.id), attempt, index: Math.max(0, members.findIndex((m) => m.id === job.id)), ...(train ? { train } : {}) };
}

/** Members ride a train: queued (or still in_progress for a bisection half) → in_progress. */
export function startMembers(store: FileStore, members: readonly JobRecord[], batchId: string, attempt: number, trainId: string): Promise<JobRecord[]> {
  return applyChanges(
    store,
    members.map((job) => ({
      id: job.id,
      to: 'in_progress' as const,
      from: ['queued', 'in_progress'] as const,
      lenient: true, // canceled since the train was planned: left out, not an error
      event: 'train_started',
      detail: { batch: batchId, attempt, train: trainId },
      patch: (current: JobRecord) => ({
        batch: batchRef(batchId, members, attempt, current, trainId),
        requeued: false,
        train: null,
        conflictPreview: null,
        attempts: current.state === 'queued' ? current.attempts + 1 : current.attempts,
        timestamps: { ...current.timestamps, started: current.timestamps.started ?? nowIso() },
      }),
    })),
  );
}

export interface RequeueOptions {
  reason: string;
  /** Back to the head of the queue, riding with the rest of its batch. */
  toHead: boolean;
  batch?: { id: string; members: readonly JobRecord[]; attempt: number };
  /** Counts against a retry allowance (retries.infra, retries.casLost). */
  countAs?: string;
  conflict?: JobRecord['conflictPreview'];
}

/** A conflict skip as the journal keeps it, so `land why` can name the paths long after. */
function conflictDetail(conflict: JobRecord['conflictPreview'] | undefined): Record<string, unknown> {
  return conflict ? { against: conflict.against, paths: conflict.paths, head: conflict.base } : {};
}

export function requeueChanges(jobs: readonly JobRecord[], opts: RequeueOptions): JobChange[] {
  return jobs.map((job) => ({
    id: job.id,
    to: 'queued' as const,
    from: ['in_progress'] as const,
    event: 'requeued',
    detail: { reason: opts.reason, ...conflictDetail(opts.conflict) },
    patch: (current: JobRecord) => ({
      requeued: opts.toHead,
      reason: opts.reason,
      batch: opts.batch ? batchRef(opts.batch.id, opts.batch.members, opts.batch.attempt, current) : null,
      conflictPreview: opts.conflict ?? current.conflictPreview,
      // A cancel asked meanwhile survives the requeue: the next train boundary honours it.
      stopRequest: current.stopRequest?.kind === 'cancel' ? current.stopRequest : null,
      requeues: opts.countAs ? { ...current.requeues, [opts.countAs]: (current.requeues[opts.countAs] ?? 0) + 1 } : current.requeues,
    }),
  }));
}

export interface FailInfo {
  reason: string;
  code: string;
  message: string;
  gateLog?: string | null;
  verdict?: 'PASS' | 'FAIL' | null;
  tree?: string | null;
  base?: string | null;
  gate?: GateTelemetry | null;
  conflict?: JobRecord['conflictPreview'];
}

export function failChanges(jobs: readonly JobRecord[], info: FailInfo): JobChange[] {
  return jobs.map((job) => ({
    id: job.id,
    to: 'failed' as const,
    from: ['in_progress'] as const,
    event: 'failed',
    // The message too: `land retry` clears the record's error, the journal keeps it.
    detail: { reason: info.reason, code: info.code, message: info.message, ...conflictDetail(info.conflict) },
    patch: (current: JobRecord) => ({
      reason: info.reason,
      error: { code: info.code, message: info.message },
      gateLog: info.gateLog ?? current.gateLog,
      verdict: info.verdict ?? current.verdict,
      tree: info.tree ?? current.tree,
      base: info.base ?? current.base,
      gate: info.gate ?? current.gate,
      conflictPreview: info.conflict ?? current.conflictPreview,
      stopRequest: null,
      timestamps: { ...current.timestamps, failed: nowIso() },
    }),
  }));
}

export function cancelChanges(jobs: readonly JobRecord[]): JobChange[] {
  return jobs.map((job) => ({
    id: job.id,
    to: 'canceled' as const,
    from: ['in_progress', 'queued'] as const,
    event: 'canceled',
    detail: { by: job.stopRequest?.by ?? null },
    patch: (current: JobRecord) => ({
      reason: 'canceled',
      stopRequest: null,
      timestamps: { ...current.timestamps, canceled: nowIso() },
    }),
  }));
}

export interface LandInfo {
  via: string;
  base: string;
  tree: string;
  train: string;
  gateLog: string | null;
  gate: GateTelemetry | null;
  verdict: 'PASS';
}

export function landChanges(jobs: readonly JobRecord[], info: LandInfo, event = 'landed'): JobChange[] {
  return jobs.map((job) => ({
    id: job.id,
    to: 'landed' as const,
    from: ['in_progress'] as const,
    event,
    detail: { train: info.train, via: info.via },
    patch: (current: JobRecord) => ({
      reason: null,
      error: null,
      verdict: info.verdict,
      base: info.base,
      tree: info.tree,
      train: info.train,
      landedVia: info.via,
      gateLog: info.gateLog,
      gate: info.gate,
      stopRequest: null,
      timestamps: { ...current.timestamps, landed: nowIso() },
    }),
  }));
}
