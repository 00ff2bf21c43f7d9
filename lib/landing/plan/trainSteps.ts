// The record changes and events of a train's steps before its verdict is settled, as pure
// functions: members that withdrew (a stop request), what the build found (contained tips,
// conflicts), and the notes a judgement leaves on its members. The train runner applies them.
import {
  cancelChanges,
  failChanges,
  fastPathNotedChanges,
  landChanges,
  ledgerObservedChanges,
  regatedChanges,
  requeueChanges,
  type JobChange,
} from '../../queue/index.js';
import type { FastPathRecord, JobRecord } from '../../store/index.js';
import type { DrainEvent } from '../events.js';
import type { Judgement } from '../gates/judge.js';
import type { TargetHealth } from '../gates/targetCheck.js';
import type { BuiltTrain } from '../trains/buildTrain.js';

/** Record changes and the events that report them, applied and emitted together. */
export interface Steps {
  changes: JobChange[];
  events: DrainEvent[];
}

/** Members whose stop request arrived are settled (cancel → canceled, preempt → queued); `live` ride on. */
export function withdrawals(fresh: readonly JobRecord[]): Steps & { live: JobRecord[]; dropped: number } {
  const cancel = fresh.filter((job) => job.stopRequest?.kind === 'cancel');
  const preempt = fresh.filter((job) => job.stopRequest?.kind === 'preempt');
  const events: DrainEvent[] = cancel.map((job) => ({ type: 'canceled', job: job.id }));
  if (preempt.length) events.push({ type: 'requeued', train: null, jobs: preempt.map((j) => j.id), reason: 'preempted' });
  return {
    changes: [...cancelChanges(cancel), ...requeueChanges(preempt, { reason: 'preempted', toHead: false })],
    events,
    live: fresh.filter((job) => !job.stopRequest && job.state !== 'landed' && job.state !== 'failed' && job.state !== 'canceled'),
    dropped: cancel.length + preempt.length,
  };
}

/**
 * What the build found: contained tips are landed already; conflicts with the target fail (the
 * author must rebase); conflicts with members ahead go back to the queue.
 */
export function buildSteps(built: BuiltTrain, ids: { trainId: string; target: string; baseTree: string; now: string }): Steps {
  const { base } = built;
  const changes: JobChange[] = [];
  const events: DrainEvent[] = [];
  if (built.contained.length) {
    changes.push(
      ...landChanges(
        built.contained,
        { via: 'contained', base, tree: ids.baseTree, train: base, gateLog: null, gate: null, verdict: 'PASS' },
        'already_contained',
      ),
    );
  }
  for (const skip of built.skipped) {
    const preview = { base: skip.head, paths: skip.paths, checkedAt: ids.now, against: skip.against };
    events.push({ type: 'member_skipped', train: ids.trainId, job: skip.job.id, against: skip.against, paths: skip.paths });
    if (skip.against === 'target') {
      changes.push(
        ...failChanges([skip.job], {
          reason: 'conflict',
          code: 'conflict',
          message: `conflicts with ${ids.target} at ${base.slice(0, 12)} in ${skip.paths.join(', ')}; rebase and submit again`,
          conflict: preview,
        }),
      );
      events.push({ type: 'failed', job: skip.job.id, reason: 'conflict', message: skip.paths.join(', ') });
    } else {
      changes.push(...requeueChanges([skip.job], { reason: 'conflict_with_train', toHead: false, conflict: preview }));
    }
  }
  return { changes, events };
}

/**
 * The notes a judgement leaves on the members before anything is settled: what the cache decided
 * for a lone job (only a PASS is a fast path taken; a cached FAIL is a verdict, said as such), a
 * `land retry` regate given, the ledger lines its batch stages left. Then the verdict is reported.
 */
export function judgedSteps(judgement: Judgement, members: readonly JobRecord[], train: { trainId: string; base: string; tree: string; now: string }): Steps {
  const changes: JobChange[] = [];
  const via = judgement.telemetry;
  if (members.length === 1 && via.mode === 'cached' && (via.source === 'proof' || via.source === 'cache')) {
    const fastPath: FastPathRecord =
      judgement.verdict === 'PASS'
        ? { alone: true, source: via.source, proofSource: via.proofSource ?? null, tree: train.tree, base: train.base, checkedAt: train.now }
        : {
            alone: false,
            refusal: 'cached_fail',
            cachedFrom: via.cachedFrom ?? null,
            cachedLog: judgement.log,
            tree: train.tree,
            base: train.base,
            checkedAt: train.now,
          };
    changes.push(...fastPathNotedChanges(members, fastPath));
  }
  // `land retry` asked for one fresh judgement; the bisection that follows may use the cache.
  const regated = members.filter((job) => job.regate === true);
  if (regated.length && !judgement.cached) changes.push(...regatedChanges(regated));
  if (judgement.ledger) changes.push(...ledgerObservedChanges(members, train.trainId, judgement.ledger));
  const reason = judgement.verdict === 'PASS' || judgement.verdict === 'STOPPED' ? null : judgement.failure.reason;
  return {
    changes,
    events: [
      { type: 'verdict', train: train.trainId, verdict: judgement.verdict, cached: judgement.cached, reason, seconds: judgement.seconds, log: judgement.log },
    ],
  };
}

/** The target's own verdict, as the progress event says it. */
export function targetCheckedEvent(target: string, base: string, health: TargetHealth): DrainEvent {
  switch (health.kind) {
    case 'green':
      return { type: 'target_checked', target, base, verdict: 'PASS', cached: health.cached, gate: null, status: null, log: health.log };
    case 'red':
      return { type: 'target_checked', target, base, verdict: 'FAIL', cached: health.cached, gate: health.gate, status: health.status, log: health.log };
    case 'unknown':
      return { type: 'target_checked', target, base, verdict: 'UNKNOWN', cached: false, gate: null, status: health.status, log: health.log };
    case 'stopped':
      return { type: 'target_checked', target, base, verdict: 'UNKNOWN', cached: false, gate: null, status: 'stopped', log: null };
    default: {
      const never: never = health;
      throw new Error(`unknown target health ${JSON.stringify(never)}`);
    }
  }
}
