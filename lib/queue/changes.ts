// Every kind of job-record change, built in one place: what a user asks (submit, cancel, retry)
// and what the drainer settles (start, requeue, fail, cancel, land, and the notes it keeps on a
// record). Builders only describe a change; lib/queue/transition.ts applies it, journaled.
import type {
  BatchRef,
  FastPathRecord,
  JournalDetailOf,
  JobReason,
  FlakyRecord,
  GateRun,
  GateTelemetry,
  JobRecord,
  LedgerObservations,
  RerunReason,
  StopRequest,
  TrainRuns,
} from '../store/index.js';
import { nowIso } from './clock.js';
import type { JobChange, JobPatch } from './transition.js';

function batchRef(id: string, members: readonly JobRecord[], attempt: number, job: JobRecord, train?: string): BatchRef {
  return {
    id,
    members: members.map((m) => m.id),
    attempt,
    index: Math.max(
      0,
      members.findIndex((m) => m.id === job.id),
    ),
    ...(train ? { train } : {}),
  };
}

/** A conflict skip as the journal keeps it, so `land why` can name the paths long after. */
function conflictDetail(conflict: JobRecord['conflictPreview'] | undefined): Record<string, unknown> {
  return conflict ? { against: conflict.against, paths: conflict.paths, head: conflict.base } : {};
}

/** Members ride a train: queued (or still in_progress for a bisection half) → in_progress. */
export function startChanges(members: readonly JobRecord[], batchId: string, attempt: number, trainId: string): JobChange[] {
  return members.map((job) => ({
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
  }));
}

export interface RequeueOptions {
  reason: JobReason;
  /** Back to the head of the queue, riding with the rest of its batch. */
  toHead: boolean;
  batch?: { id: string; members: readonly JobRecord[]; attempt: number };
  /** Counts against a retry allowance (retries.infra, retries.casLost). */
  countAs?: string;
  conflict?: JobRecord['conflictPreview'];
  /** What the target's own gates said, when a red target sent the job back (kept in the journal). */
  targetCheck?: Record<string, unknown>;
  /** How often the train the jobs rode was gated so far (a train is gated at most five times). */
  trainRuns?: TrainRuns;
}

export function requeueChanges(jobs: readonly JobRecord[], opts: RequeueOptions): JobChange[] {
  return jobs.map((job) => ({
    id: job.id,
    to: 'queued' as const,
    from: ['in_progress'] as const,
    event: 'requeued',
    detail: { reason: opts.reason, ...conflictDetail(opts.conflict), ...(opts.targetCheck ? { targetCheck: opts.targetCheck } : {}) },
    patch: (current: JobRecord) => ({
      requeued: opts.toHead,
      reason: opts.reason,
      batch: opts.batch ? batchRef(opts.batch.id, opts.batch.members, opts.batch.attempt, current) : null,
      conflictPreview: opts.conflict ?? current.conflictPreview,
      // A cancel asked meanwhile survives the requeue: the next train boundary honours it.
      stopRequest: current.stopRequest?.kind === 'cancel' ? current.stopRequest : null,
      requeues: opts.countAs ? { ...current.requeues, [opts.countAs]: (current.requeues[opts.countAs] ?? 0) + 1 } : current.requeues,
      ...(opts.trainRuns ? { trainRuns: opts.trainRuns } : {}),
    }),
  }));
}

export interface FailInfo {
  reason: JobReason;
  code: string;
  message: string;
  gateLog?: string | null;
  /** The excerpt of the failing gate's stored log: its failure lines, then its last lines (gates/excerpt.ts); absent when no gate's failure decided. */
  gateLogTail?: readonly string[];
  verdict?: 'PASS' | 'FAIL' | null;
  tree?: string | null;
  base?: string | null;
  gate?: GateTelemetry | null;
  conflict?: JobRecord['conflictPreview'];
  trainRuns?: TrainRuns;
  /** More of what the journal's `failed` line keeps (a bad tip: the tip and what it is). */
  detail?: Pick<JournalDetailOf<'failed'>, 'tip' | 'found'>;
}

export function failChanges(jobs: readonly JobRecord[], info: FailInfo): JobChange[] {
  return jobs.map((job) => ({
    id: job.id,
    to: 'failed' as const,
    from: ['in_progress'] as const,
    event: 'failed',
    // The message too: `land retry` clears the record's error, the journal keeps it.
    detail: { reason: info.reason, code: info.code, message: info.message, ...conflictDetail(info.conflict), ...info.detail },
    patch: (current: JobRecord) => ({
      reason: info.reason,
      error: { code: info.code, message: info.message },
      gateLog: info.gateLog ?? current.gateLog,
      // Only this failure's own lines: none when no gate's failure decided it (a conflict, a lost CAS).
      gateLogTail: info.gateLogTail ? [...info.gateLogTail] : undefined,
      verdict: info.verdict ?? current.verdict,
      tree: info.tree ?? current.tree,
      base: info.base ?? current.base,
      gate: info.gate ?? current.gate,
      conflictPreview: info.conflict ?? current.conflictPreview,
      stopRequest: null,
      ...(info.trainRuns ? { trainRuns: info.trainRuns } : {}),
      timestamps: { ...current.timestamps, failed: nowIso() },
    }),
  }));
}

/**
 * Jobs whose tip is no commit here (lib/landing/plan/tipCheck.ts), failed with reason `bad_tip`
 * where they stand: queued (refused at admission, before any train) or riding. Planned from a
 * listing read before the lock: a job canceled meanwhile, or given a new tip, is left as it is.
 */
export function badTipChanges(bad: readonly { job: JobRecord; found: string; message: string }[]): JobChange[] {
  return bad.flatMap(({ job, found, message }) =>
    failChanges([job], { reason: 'bad_tip', code: 'bad_tip', message, detail: { tip: job.tip, found } }).map((change) => ({
      ...change,
      from: ['queued', 'in_progress'] as const,
      lenient: true,
      when: (current: JobRecord) => current.tip === job.tip,
    })),
  );
}

/** A queued job canceled by a user, or a riding job whose cancel request the drainer honours. */
export function cancelChange(id: string, by: string | null): JobChange {
  return {
    id,
    to: 'canceled',
    from: ['in_progress', 'queued'],
    event: 'canceled',
    detail: { by },
    patch: (current: JobRecord) => ({
      reason: 'canceled',
      stopRequest: null,
      timestamps: { ...current.timestamps, canceled: nowIso() },
    }),
  };
}

/** The drainer honours the cancel requests of these jobs (who asked is kept in the journal). */
export function cancelChanges(jobs: readonly JobRecord[]): JobChange[] {
  return jobs.map((job) => cancelChange(job.id, job.stopRequest?.by ?? null));
}

/** A riding job is asked to stop at the next train boundary: a user's cancel, or an urgent job's preemption. */
export function stopRequestChange(id: string, request: Omit<StopRequest, 'at'>): JobChange {
  return {
    id,
    from: ['in_progress'],
    event: 'stop_requested',
    detail: request.kind === 'cancel' ? { kind: 'cancel', by: request.by } : { kind: 'preempt', by: request.by, forJob: request.forJob },
    patch: { stopRequest: { ...request, at: nowIso() } },
  };
}

/** A new tip of a queued branch replaces its job's tip (and title, when one is given). */
export function tipUpdateChange(job: JobRecord, tip: string, title?: string): JobChange {
  return {
    id: job.id,
    from: ['queued'],
    event: 'tip_updated',
    detail: { from: job.tip, to: tip },
    patch: { tip, conflictPreview: null, ...(title ? { title } : {}) },
  };
}

export type ReopenEvent = 'retried' | 'resubmitted';

/** The one change that reopens a failed or canceled job; `extra` adds fields (a new title, urgency). */
export function reopenChange(job: JobRecord, event: ReopenEvent, by: string, extra: JobPatch = {}): JobChange {
  return {
    id: job.id,
    to: 'queued',
    from: ['failed', 'canceled'],
    event,
    detail: { by, previousState: job.state, previousReason: job.reason, tip: job.tip },
    patch: (current) => {
      // The last ending's time stays in the journal; the record describes the job as it is now.
      const timestamps: JobRecord['timestamps'] = { ...current.timestamps, reopened: nowIso() };
      delete timestamps.failed;
      delete timestamps.canceled;
      return {
        reason: null,
        error: null,
        batch: null,
        verdict: null,
        requeued: false,
        requeues: {},
        attempts: 0,
        conflictPreview: null,
        stopRequest: null,
        timestamps,
        // A fresh judgement: a cached FAIL of a train holding this job is not reused, and its
        // trains get their flaky allowance afresh.
        regate: true,
        trainRuns: undefined,
        // The failure's gate log lines go with its error (the journal keeps them).
        gateLogTail: undefined,
        ...extra,
      };
    },
  };
}

export interface LandInfo {
  via: string;
  base: string;
  tree: string;
  train: string;
  gateLog: string | null;
  gate: GateTelemetry | null;
  verdict: 'PASS';
  /** The landing train's run count (its flaky re-runs included), as a failure records it; absent: left as it is. */
  trainRuns?: TrainRuns;
}

export function landChanges(
  jobs: readonly JobRecord[],
  info: LandInfo,
  event: 'landed' | 'recovered_landed' | 'already_contained' | 'reconciled' = 'landed',
): JobChange[] {
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
      ...(info.trainRuns ? { trainRuns: info.trainRuns } : {}),
      stopRequest: null,
      timestamps: { ...current.timestamps, landed: nowIso() },
    }),
  }));
}

/**
 * Before the CAS, every member records the train commit, so a drainer killed right after the ref
 * moved is recovered as landed (its train is in the target), not guessed.
 */
export function landingChanges(jobs: readonly JobRecord[], train: { commit: string; base: string; tree: string; kind: string }): JobChange[] {
  return jobs.map((job) => ({
    id: job.id,
    from: ['in_progress'] as const,
    event: 'landing',
    detail: { train: train.commit, base: train.base },
    patch: { train: train.commit, base: train.base, tree: train.tree, landedVia: train.kind },
  }));
}

/**
 * The halves of a batch waiting in the queue rejoin (they ride together next): the culprit was
 * found, or the target itself is red. Checked again under the lock: only a half still waiting moves.
 */
export function rejoinChanges(waiting: readonly JobRecord[], batchId: string, event: 'culprit_found' | 'target_red'): JobChange[] {
  return waiting.map((job) => ({
    id: job.id,
    from: ['queued'] as const,
    lenient: true,
    when: (current: JobRecord) => current.requeued && current.batch?.id === batchId && current.reason === 'bisected',
    event,
    detail: { batch: batchId },
    patch: { reason: event },
  }));
}

/** The window choice's fast-path decision for a queued head job, kept where `land show` reads it. */
export function fastPathCheckedChange(job: JobRecord, fastPath: FastPathRecord): JobChange {
  return { id: job.id, from: ['queued'], lenient: true, event: 'fast_path_checked', detail: { ...fastPath }, patch: { fastPath } };
}

/** What the cache decided for a lone riding job: a fast path taken, or a verdict from the cache. */
export function fastPathNotedChanges(jobs: readonly JobRecord[], fastPath: FastPathRecord): JobChange[] {
  const event = fastPath.alone ? 'fast_path_taken' : 'judged_from_cache';
  return jobs.map((job) => ({ id: job.id, lenient: true, from: ['in_progress'] as const, event, detail: fastPath, patch: { fastPath } }));
}

/** `land retry` asked for one fresh judgement, and it was given. */
export function regatedChanges(jobs: readonly JobRecord[]): JobChange[] {
  return jobs.map((job) => ({ id: job.id, lenient: true, from: ['in_progress'] as const, event: 'regated', patch: { regate: false } }));
}

/** The ledger lines the train's batch stages left, kept on each member. */
export function ledgerObservedChanges(jobs: readonly JobRecord[], trainId: string, ledger: LedgerObservations): JobChange[] {
  return jobs.map((job) => ({ id: job.id, event: 'ledger_observed', detail: { train: trainId }, patch: { ledger } }));
}

/**
 * A train's gate failed and its gates run again on the same tree (policy flaky): the failed run
 * and why it runs again are journaled, and the train's run count kept on the record before the
 * re-run starts.
 */
export function rerunChanges(
  jobs: readonly JobRecord[],
  rerun: { train: string; run: number; failed: GateRun; trainRuns: TrainRuns; why: RerunReason },
): JobChange[] {
  const { failed, why } = rerun;
  return jobs.map((job) => ({
    id: job.id,
    lenient: true,
    from: ['in_progress'] as const,
    event: 'gate_rerun',
    detail: {
      train: rerun.train,
      run: rerun.run,
      failedRun: failed.run,
      gate: failed.gate,
      status: failed.status,
      cached: failed.cached,
      log: failed.log,
      members: jobs.length,
      ...why,
    },
    patch: { trainRuns: rerun.trainRuns },
  }));
}

/**
 * The target check made for a job that failed alone (gates/targetCheck.ts) saw a gate fail on the
 * target's tree and a re-run of the same tree pass: a flake on a known-good tree, told in the job's
 * journal (`land why`). Nothing of the record changes.
 */
export function targetFlakyChanges(jobs: readonly JobRecord[], flaky: FlakyRecord): JobChange[] {
  return jobs.map((job) => ({
    id: job.id,
    lenient: true,
    from: ['in_progress'] as const,
    event: 'target_flaky',
    detail: {
      gate: flaky.gate,
      tree: flaky.tree,
      train: flaky.train,
      failedRun: flaky.failed.run,
      status: flaky.failed.status,
      passedRun: flaky.passed.run,
    },
  }));
}

/**
 * Optimistic clearing (policy flaky.clearing): the train these jobs rode failed, and the train built
 * on it passed; they land with its members. The failed run is told in their journal (`land why`);
 * nothing of the record changes (the landing that follows writes it).
 */
export function clearedChanges(jobs: readonly JobRecord[], cleared: JournalDetailOf<'cleared'>): JobChange[] {
  return jobs.map((job) => ({ id: job.id, lenient: true, from: ['in_progress'] as const, event: 'cleared', detail: { ...cleared } }));
}

/** A gate failed and a re-run of the same tree passed: the flake is kept on the record and in the journal. */
export function flakyChanges(jobs: readonly JobRecord[], flaky: FlakyRecord): JobChange[] {
  return jobs.map((job) => ({
    id: job.id,
    lenient: true,
    from: ['in_progress'] as const,
    event: 'gate_flaky',
    detail: {
      gate: flaky.gate,
      tree: flaky.tree,
      train: flaky.train,
      failedRun: flaky.failed.run,
      failedTrain: flaky.failed.train,
      status: flaky.failed.status,
      passedRun: flaky.passed.run,
    },
    patch: { flaky },
  }));
}
