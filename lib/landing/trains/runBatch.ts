// One admitted batch, from its first train to the end of its bisection: build the train on the
// target tip, judge it once (cache or gates), then land it with one CAS, or split it. The first
// half of a failed train is the next train at once; the second half goes back to the head of the
// queue and rides with the rest of its batch afterwards.
import { loadPolicy } from '../../config/index.js';
import { treeOf } from '../../git/index.js';
import { applyChanges, newBatchId, nowIso, type JobChange } from '../../queue/index.js';
import type { FastPathRecord, FileStore, JobRecord, TrainMetricRow } from '../../store/index.js';
import { buildTrain } from './buildTrain.js';
import type { DrainEvent, Emit } from '../events.js';
import type { GateFailure } from '../gates/gateRunner.js';
import { judgeTrain } from '../gates/judge.js';
import { landTrain } from './landTrain.js';
import { publishLanding } from './publish.js';
import { cancelChanges, failChanges, landChanges, requeueChanges, startMembers } from './settle.js';
import { checkTarget, type TargetHealth } from '../gates/targetCheck.js';
import { splitFailed, verdictMovesWindow } from '../plan/trainPlan.js';
import { bumpWindow, currentWindow } from '../window.js';

export interface DrainContext {
  cwd: string;
  store: FileStore;
  emit: Emit;
  token: string;
  /** Aborted by a second signal: running gates are killed and members requeued. */
  abort: AbortSignal;
  /** The target named on the command line, if any (else git config / main). */
  target?: string;
  counters: { trains: number; gateRuns: number };
}

/** `infra`: the reason of a train that tested nothing (the drain backs off before the next). */
export type BatchOutcome =
  | { kind: 'done'; infra?: string }
  | { kind: 'stop'; why: 'target_dirty' | 'interrupted' | 'lock_lost' | 'target_red'; message: string };

function batchIdentity(members: readonly JobRecord[]): { id: string; attempt: number } {
  const head = members[0];
  if (head?.requeued && head.batch) {
    return { id: head.batch.id, attempt: Math.max(...members.map((job) => job.batch?.attempt ?? 1)) };
  }
  return { id: newBatchId(), attempt: 1 };
}

/** Settles members whose stop request arrived; returns the others. */
async function dropStopped(ctx: DrainContext, members: readonly JobRecord[]): Promise<{ live: JobRecord[]; dropped: number }> {
  const fresh = members.map((job) => ctx.store.readJob(job.id)).filter((job): job is JobRecord => job !== null);
  const cancel = fresh.filter((job) => job.stopRequest?.kind === 'cancel');
  const preempt = fresh.filter((job) => job.stopRequest?.kind === 'preempt');
  const changes: JobChange[] = [
    ...cancelChanges(cancel),
    ...requeueChanges(preempt, { reason: 'preempted', toHead: false }),
  ];
  if (changes.length) await applyChanges(ctx.store, changes);
  for (const job of cancel) ctx.emit({ type: 'canceled', job: job.id });
  if (preempt.length) ctx.emit({ type: 'requeued', train: null, jobs: preempt.map((j) => j.id), reason: 'preempted' });
  const live = fresh.filter((job) => !job.stopRequest && job.state !== 'landed' && job.state !== 'failed' && job.state !== 'canceled');
  return { live, dropped: cancel.length + preempt.length };
}

function targetChecked(target: string, base: string, health: TargetHealth): DrainEvent {
  switch (health.kind) {
    case 'green': return { type: 'target_checked', target, base, verdict: 'PASS', cached: health.cached, gate: null, status: null, log: health.log };
    case 'red': return { type: 'target_checked', target, base, verdict: 'FAIL', cached: health.cached, gate: health.gate, status: health.status, log: health.log };
    case 'unknown': return { type: 'target_checked', target, base, verdict: 'UNKNOWN', cached: false, gate: null, status: health.status, log: health.log };
    case 'stopped': return { type: 'target_checked', target, base, verdict: 'UNKNOWN', cached: false, gate: null, status: 'stopped', log: null };
    default: {
      const never: never = health;
      throw new Error(`unknown target health ${JSON.stringify(never)}`);
    }
  }
}

/**
 * A job that failed alone on a red target (or whose target check was stopped) is not judged: it
 * goes back to the head of the queue at the same attempt, counted against no retry, and the rest
 * of its batch waiting in halves rejoins it, so once the target is fixed the batch rides whole.
 */
async function sendBackUnjudged(
  ctx: DrainContext,
  opts: { job: JobRecord; batchId: string; attempt: number; trainId: string; target: string; base: string; health: TargetHealth & { kind: 'red' | 'stopped' }; row: TrainMetricRow },
): Promise<BatchOutcome> {
  const { job, batchId, health } = opts;
  const reason = health.kind === 'red' ? 'target_red' : 'interrupted';
  const evidence = health.kind === 'red' ? { target: opts.target, base: opts.base, gate: health.gate, status: health.status, log: health.log, judgedBy: health.train, cached: health.cached } : null;
  const back = requeueChanges([job], { reason, toHead: true, batch: { id: batchId, members: [job], attempt: opts.attempt } }).map((change) => ({ ...change, detail: { reason, ...(evidence ? { targetCheck: evidence } : {}) } }));
  const waiting = health.kind === 'red' ? ctx.store.listJobs().jobs.filter((other) => other.state === 'queued' && other.requeued && other.batch?.id === batchId && other.reason === 'bisected') : [];
  const rejoin: JobChange[] = waiting.map((other) => ({ id: other.id, from: ['queued'] as const, lenient: true, event: 'target_red', detail: { batch: batchId }, patch: { reason: 'target_red' } }));
  await applyChanges(ctx.store, [...back, ...rejoin], () => ctx.store.appendMetric(opts.row));
  ctx.emit({ type: 'requeued', train: opts.trainId, jobs: [job.id], reason: health.kind === 'red' ? `${opts.target} itself is red; not this job's fault` : 'interrupted' });
  if (health.kind === 'stopped') return { kind: 'stop', why: 'interrupted', message: 'the gate was stopped by a signal' };
  return {
    kind: 'stop',
    why: 'target_red',
    message: `${opts.target} itself fails gate ${health.gate} (${health.status}) at ${opts.base.slice(0, 12)}; log ${health.log ?? '(none)'}; fix ${opts.target}, then run land again; no job was failed`,
  };
}

function metricRow(fields: Omit<TrainMetricRow, 'at'>): TrainMetricRow {
  return { at: nowIso(), ...fields };
}

export async function runBatch(ctx: DrainContext, admitted: readonly JobRecord[]): Promise<BatchOutcome> {
  const identity = batchIdentity(admitted);
  const batchId = identity.id;
  let attempt = identity.attempt;
  let current: JobRecord[] = [...admitted];

  for (;;) {
    const loaded = await loadPolicy(ctx.cwd, ctx.target);
    const base = loaded.tip; // the train is built on the very commit the policy was read from
    const baseTree = await treeOf(ctx.cwd, base);

    const stopped = await dropStopped(ctx, current);
    if (!stopped.live.length) return { kind: 'done' };
    const trainId = ctx.store.claimTrainId(batchId);
    current = await startMembers(ctx.store, stopped.live, batchId, attempt, trainId);
    const built = await buildTrain(ctx.cwd, base, baseTree, current, trainId);

    // Settle what the build found: contained tips are landed already; conflicts with the target
    // fail (the author must rebase); conflicts with members ahead go back to the queue.
    const settle: JobChange[] = [];
    if (built.contained.length) {
      settle.push(...landChanges(built.contained, { via: 'contained', base, tree: baseTree, train: base, gateLog: null, gate: null, verdict: 'PASS' }, 'already_contained'));
    }
    for (const skip of built.skipped) {
      const preview = { base: skip.head, paths: skip.paths, checkedAt: nowIso(), against: skip.against };
      ctx.emit({ type: 'member_skipped', train: trainId, job: skip.job.id, against: skip.against, paths: skip.paths });
      if (skip.against === 'target') {
        settle.push(...failChanges([skip.job], { reason: 'conflict', code: 'conflict', message: `conflicts with ${loaded.target} at ${base.slice(0, 12)} in ${skip.paths.join(', ')}; rebase and submit again`, conflict: preview }));
        ctx.emit({ type: 'failed', job: skip.job.id, reason: 'conflict', message: skip.paths.join(', ') });
      } else {
        settle.push(...requeueChanges([skip.job], { reason: 'conflict_with_train', toHead: false, conflict: preview }));
      }
    }
    if (settle.length) await applyChanges(ctx.store, settle);
    const members = built.members.map((m) => m.job);
    if (!members.length) return { kind: 'done' };
    ctx.counters.trains += 1;
    ctx.emit({ type: 'train_built', train: trainId, attempt, kind: built.kind, base, commit: built.train, tree: built.tree, members: members.map((m) => m.id) });

    const judgement = await judgeTrain(ctx, loaded, built, baseTree, { batchId, trainId }, members);
    if (judgement.refreshed) {
      // Refresh entries committed on top of the train: that commit is what was judged and lands.
      built.train = judgement.refreshed.commit;
      built.tree = judgement.refreshed.tree;
    }
    const via = judgement.telemetry;
    if (members.length === 1 && via.mode === 'cached' && (via.source === 'proof' || via.source === 'cache')) {
      // What the cache decided for this lone job, kept where `land show` reads it. Only a PASS
      // is a fast path taken (the job skips its gate); a cached FAIL is a verdict, said as such.
      const fastPath: FastPathRecord = judgement.verdict === 'PASS'
        ? { alone: true, source: via.source, proofSource: via.proofSource ?? null, tree: built.tree, base, checkedAt: nowIso() }
        : { alone: false, refusal: 'cached_fail', cachedFrom: via.cachedFrom ?? null, cachedLog: judgement.log, tree: built.tree, base, checkedAt: nowIso() };
      const event = judgement.verdict === 'PASS' ? 'fast_path_taken' : 'judged_from_cache';
      await applyChanges(ctx.store, members.map((job) => ({ id: job.id, lenient: true, from: ['in_progress'] as const, event, detail: fastPath, patch: { fastPath } })));
    }
    const regated = members.filter((job) => job.regate === true);
    if (regated.length && !judgement.cached) {
      // `land retry` asked for one fresh judgement; the bisection that follows may use the cache.
      await applyChanges(ctx.store, regated.map((job) => ({ id: job.id, lenient: true, from: ['in_progress'] as const, event: 'regated', patch: { regate: false } })));
    }
    if (judgement.ledger) {
      const observed = judgement.ledger;
      await applyChanges(ctx.store, members.map((job) => ({ id: job.id, event: 'ledger_observed', detail: { train: trainId }, patch: { ledger: observed } })));
    }
    ctx.emit({ type: 'verdict', train: trainId, verdict: judgement.verdict, cached: judgement.cached, reason: judgement.failure && judgement.failure.kind !== 'stopped' ? judgement.failure.reason : null, seconds: judgement.seconds, log: judgement.log });

    // Post-gate checkpoint: a member stopped while the gate ran voids the run (the gate judged a
    // tree that will not land); the others go back at the same attempt and the window stays.
    if (judgement.verdict === 'STOPPED') {
      await applyChanges(ctx.store, requeueChanges(members, { reason: 'interrupted', toHead: true, batch: { id: batchId, members, attempt } }));
      ctx.emit({ type: 'requeued', train: trainId, jobs: members.map((m) => m.id), reason: 'interrupted' });
      return { kind: 'stop', why: 'interrupted', message: 'the gate was stopped by a signal' };
    }
    const after = await dropStopped(ctx, members);
    if (after.dropped > 0) {
      if (after.live.length) {
        await applyChanges(ctx.store, requeueChanges(after.live, { reason: 'withdrawn', toHead: true, batch: { id: batchId, members: after.live, attempt } }));
        ctx.emit({ type: 'requeued', train: trainId, jobs: after.live.map((m) => m.id), reason: 'a member withdrew during the gate; run void' });
      }
      return { kind: 'done' };
    }

    const policy = loaded.policy;
    const windowBefore = currentWindow(ctx.store, policy.batch.max);
    // Enough to tell the train's story (`land why`) and rebuild it (`land repro`): members in merge
    // order with the tips that were merged, the kind of chain, and the log the verdict is in.
    const baseRow = { train: trainId, batch: batchId, attempt, kind: built.kind, members: members.map((m) => m.id), branches: members.map((m) => m.branch), tips: members.map((m) => m.tip), base, commit: built.train, tree: built.tree, gateSeconds: judgement.seconds, cached: judgement.cached, log: judgement.log, gate: judgement.telemetry };

    switch (judgement.verdict) {
      case 'INFRA': {
        const failure = judgement.failure as GateFailure & { kind: 'infra' };
        const over = members.filter((job) => (job.requeues.infra ?? 0) + 1 > policy.retries.infra);
        const again = members.filter((job) => !over.includes(job));
        const message = `gate ${failure.gate}: ${failure.status} (${failure.reason})${failure.stderr ? `: ${failure.stderr}` : ''}; nothing was tested`;
        await applyChanges(ctx.store, [
          ...requeueChanges(again, { reason: failure.reason, toHead: true, batch: { id: batchId, members: again, attempt }, countAs: 'infra' }),
          ...failChanges(over, { reason: 'infra', code: failure.reason, message: `${message}; gave up after ${policy.retries.infra} retries`, gateLog: judgement.log }),
        ], () => ctx.store.appendMetric(metricRow({ ...baseRow, verdict: 'INFRA', reason: failure.reason, windowBefore, windowAfter: windowBefore, landed: false })));
        if (again.length) ctx.emit({ type: 'requeued', train: trainId, jobs: again.map((m) => m.id), reason: message });
        for (const job of over) ctx.emit({ type: 'failed', job: job.id, reason: 'infra', message });
        return { kind: 'done', infra: failure.reason };
      }
      case 'FAIL': {
        const failure = judgement.failure as GateFailure & { kind: 'fail' | 'refused' };
        const message = `gate ${failure.gate}: ${failure.status}${judgement.log ? `; log ${judgement.log}` : ''}`;
        let note = '';
        if (members.length === 1 && failure.kind === 'fail') {
          // Before a job is failed on its own: is the target itself red? Then no job is at fault,
          // and the verdict moves nothing (the window included): the job goes back unjudged.
          const job = members[0] as JobRecord;
          const health = await checkTarget(ctx, { loaded, base, baseTree, batchId, job: job.id });
          ctx.emit(targetChecked(loaded.target, base, health));
          if (health.kind === 'red' || health.kind === 'stopped') {
            const row = metricRow({ ...baseRow, verdict: 'FAIL', reason: health.kind === 'red' ? 'target_red' : failure.reason, windowBefore, windowAfter: windowBefore, landed: false });
            return await sendBackUnjudged(ctx, { job, batchId, attempt, trainId, target: loaded.target, base, health, row });
          }
          if (health.kind === 'unknown') note = `; ${loaded.target} itself could not be gated (${health.status})`;
        }
        const window = verdictMovesWindow(attempt, judgement.cached) ? bumpWindow(ctx.store, 'FAIL', policy.batch.max, trainId) : { before: windowBefore, after: windowBefore };
        if (window.before !== window.after) ctx.emit({ type: 'window', before: window.before, after: window.after, event: 'FAIL' });
        const row = metricRow({ ...baseRow, verdict: 'FAIL', reason: failure.reason, windowBefore: window.before, windowAfter: window.after, landed: false });
        if (members.length === 1 || failure.kind === 'refused') {
          // The culprit is found: the rest of its batch, waiting in halves, rides together next.
          const waiting = ctx.store.listJobs().jobs.filter((job) => job.state === 'queued' && job.requeued && job.batch?.id === batchId && job.reason === 'bisected');
          const rejoin: JobChange[] = waiting.map((job) => ({ id: job.id, from: ['queued'] as const, lenient: true, event: 'culprit_found', detail: { batch: batchId }, patch: { reason: 'culprit_found' } }));
          await applyChanges(ctx.store, [...failChanges(members, { reason: failure.reason, code: failure.reason, message: message + note, gateLog: judgement.log, verdict: 'FAIL', tree: built.tree, base, gate: judgement.telemetry }), ...rejoin], () => ctx.store.appendMetric(row));
          for (const job of members) ctx.emit({ type: 'failed', job: job.id, reason: failure.reason, message: message + note });
          return { kind: 'done' };
        }
        const { first, second } = splitFailed(members);
        await applyChanges(ctx.store, requeueChanges(second, { reason: 'bisected', toHead: true, batch: { id: batchId, members: second, attempt: attempt + 1 } }), () => ctx.store.appendMetric(row));
        ctx.emit({ type: 'bisected', train: trainId, attempt, first: first.map((m) => m.id), second: second.map((m) => m.id) });
        current = first;
        attempt += 1;
        continue;
      }
      case 'PASS':
        break;
      default: {
        const never: never = judgement.verdict;
        throw new Error(`unknown verdict ${String(never)}`);
      }
    }

    // The lease: a drainer that lost its lock (another took over and recovered these jobs) must
    // not land. The token file names the drainer that holds the queue now.
    if (ctx.store.readToken() !== ctx.token) {
      return { kind: 'stop', why: 'lock_lost', message: 'another drainer took over the queue; this one stops without landing' };
    }

    // PASS: journal the train commit on every member before the CAS, so a drainer killed right
    // after the ref moved is recovered as landed (its train is in the target), not guessed.
    await applyChanges(ctx.store, members.map((job) => ({ id: job.id, from: ['in_progress'] as const, event: 'landing', detail: { train: built.train, base }, patch: { train: built.train, base, tree: built.tree, landedVia: built.kind } })));
    const landed = await landTrain({ cwd: ctx.cwd, target: loaded.target, base, train: built.train, token: ctx.token, message: `land: train ${trainId} (${members.map((m) => m.id).join(' ')})` });
    switch (landed.kind) {
      case 'lost': {
        const over = members.filter((job) => (job.requeues.casLost ?? 0) + 1 > policy.retries.casLost);
        const again = members.filter((job) => !over.includes(job));
        await applyChanges(ctx.store, [
          ...requeueChanges(again, { reason: 'cas_lost', toHead: true, batch: { id: batchId, members: again, attempt }, countAs: 'casLost' }),
          ...failChanges(over, { reason: 'cas_lost', code: 'cas_lost', message: `the target kept moving; gave up after ${policy.retries.casLost} rebuilds` }),
        ], () => ctx.store.appendMetric(metricRow({ ...baseRow, verdict: 'PASS', reason: 'cas_lost', windowBefore, windowAfter: windowBefore, landed: false })));
        ctx.emit({ type: 'requeued', train: trainId, jobs: again.map((m) => m.id), reason: `the target moved to ${landed.actual?.slice(0, 12) ?? '(deleted)'} during the gate; rebuilding` });
        return { kind: 'done' };
      }
      case 'target_dirty': {
        await applyChanges(ctx.store, requeueChanges(members, { reason: 'target_dirty', toHead: true, batch: { id: batchId, members, attempt } }), () => ctx.store.appendMetric(metricRow({ ...baseRow, verdict: 'PASS', reason: 'target_dirty', windowBefore, windowAfter: windowBefore, landed: false })));
        ctx.emit({ type: 'requeued', train: trainId, jobs: members.map((m) => m.id), reason: 'target_dirty' });
        return { kind: 'stop', why: 'target_dirty', message: `${loaded.target} is checked out with uncommitted changes at ${landed.worktree}; commit or stash them, then run land again` };
      }
      case 'landed':
        break;
      default: {
        const never: never = landed;
        throw new Error(`unknown landing ${JSON.stringify(never)}`);
      }
    }
    if (landed.warning) ctx.emit({ type: 'warning', message: landed.warning });
    let window = { before: windowBefore, after: windowBefore };
    await applyChanges(
      ctx.store,
      landChanges(members, { via: built.kind, base, tree: built.tree, train: built.train, gateLog: judgement.log, gate: judgement.telemetry, verdict: 'PASS' }),
      () => {
        // The window, the members' records and the train's one metrics row change under one hold.
        if (verdictMovesWindow(attempt, judgement.cached)) window = bumpWindow(ctx.store, 'PASS', policy.batch.max, trainId);
        ctx.store.appendMetric(metricRow({ ...baseRow, verdict: 'PASS', reason: null, windowBefore: window.before, windowAfter: window.after, landed: true }));
      },
    );
    ctx.emit({ type: 'landed', train: trainId, commit: built.train, via: built.kind, members: members.map((m) => m.id) });
    if (window.before !== window.after) ctx.emit({ type: 'window', before: window.before, after: window.after, event: 'PASS' });
    const published = await publishLanding({ cwd: ctx.cwd, store: ctx.store, policy, target: loaded.target, commit: built.train, token: ctx.token });
    if (published.kind === 'pushed') ctx.emit({ type: 'published', remote: published.remote, commit: built.train });
    if (published.kind === 'rejected') ctx.emit({ type: 'publish_rejected', remote: published.remote, message: published.message });
    return { kind: 'done' };
  }
}
