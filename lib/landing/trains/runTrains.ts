// One admitted batch, from its first train to the end of its bisection: build the train on the
// target tip, judge it once (cache or gates), then land it through the store (one compare-and-swap of a
// clone's own target, or one atomic push to a queue's remote), or split it. The first
// half of a failed train is the next train at once; the second half goes back to the head of the
// queue and rides with the rest of its batch afterwards. What each step changes is decided by the
// pure functions of plan/trainSteps.ts and plan/settlement.ts; this module performs the effects
// (git, gates, the target check, the landing) and applies what they return.
import type { SandboxHost } from '../gates/sandbox.js';
import type { WorktreePool } from '../gates/worktreePool.js';
import type { GateSlots } from '../executors/gateSlots.js';
import { targetTip } from '../targetPolicy.js';
import { gatesHash, type LoadedPolicy } from '../../config/index.js';
import { treeOf } from '../../git/index.js';
import { applyChanges, applyChangesLocked, landingChanges, newBatchId, nowIso, startChanges } from '../../queue/index.js';
import type { QueueStore, JobRecord } from '../../store/index.js';
import { admitTips } from './admitTips.js';
import { buildTrain, type BuiltTrain } from './buildTrain.js';
import type { DrainEvent, Emit } from '../events.js';
import type { FastPathCheck, Judgement } from '../gates/judge.js';
import { judgeWithReruns, type RerunOutcome } from './rerunTrain.js';
import { targetStillAt } from './targetStillAt.js';
import { publishLanding } from './publish.js';
import { checkTarget } from '../gates/targetCheck.js';
import { voidRedEpisode } from '../gates/verdictCache.js';
import { protectHookCheck } from '../../hooks/guard.js';
import { effectNeeded, landedViaOf, settleTrain, type Found, type Next, type Settlement, type StopWhy, type TrainFacts } from '../plan/settlement.js';
import { buildSteps, withdrawals, type Steps } from '../plan/trainSteps.js';
import { startsBatch, waitingHalves } from '../plan/trainPlan.js';
import { bumpWindow, currentWindow, recordedTally } from '../window.js';
import { failpoint } from '../../failpoint.js';
import type { FlakeHistory } from '../flakeHistory.js';

export interface DrainContext {
  cwd: string;
  store: QueueStore;
  emit: Emit;
  /** Whether this drainer still holds the queue (the drain lock's lease; no secret is read back). */
  holds: () => boolean;
  /** Aborted by a second signal: running gates are killed and members requeued. */
  abort: AbortSignal;
  /** The drain's target branch, resolved once by the command. */
  target: string;
  /** The policy at the target's tip as it is now (read afresh: a train built on a new tip reads it again). */
  reloadPolicy: () => Promise<LoadedPolicy>;
  counters: { trains: number; gateRuns: number };
  /** The gates' sandbox, resolved once per drain (gates/sandbox.ts). */
  sandbox: SandboxHost;
  /** Tips found to be commits this drain, with when (performance.now()): trusted a while (trains/admitTips.ts). */
  tipChecks: Map<string, number>;
  /** A speculative train's verdict writes, held until the train ahead lands (gates/judging.ts). */
  keep?: (write: () => void) => void;
  /** When this drain started (ISO): a red target voids the FAILs cached since, or since its last PASS (plan/redEpisode.ts). */
  startedAt: string;
  /** The drain's gate worktrees, one per slot, moved from train to train (gates/worktreePool.ts). */
  worktrees?: WorktreePool;
  /** The drain's gate slots across its executors (executors/gateSlots.ts). */
  slots?: GateSlots;
  /** Each gate's flake history, read when a run first fails and added to as trains end (../flakeHistory.ts). */
  flakes: FlakeHistory;
  /**
   * A speculative train (batch.parallel): resolves once the train ahead has landed, or this train is
   * stopped. A failed run is not re-run before: built on a train not yet landed, it may be failing
   * for that train's culprit (pipeline/flight.ts). Absent: the train is built on the target.
   */
  aheadLanded?: () => Promise<void>;
  /**
   * Optimistic clearing (policy flaky.clearing, batch.parallel): whether the train built on this one
   * passed. Asked after a FAIL, before a re-run: true ends the runs (pipeline/clearing.ts lands both).
   */
  behindPassed?: (judgement: Judgement) => Promise<boolean>;
}

/** What the drain read this pass, handed to the batch's first train so it is not read again. */
export interface PassView {
  loaded: LoadedPolicy;
  /** The tree of loaded.tip, the target tip the train is built on. */
  baseTree: string;
  /** The job listing of this pass. */
  jobs: readonly JobRecord[];
  /** The window choice's fast-path decision for the head job, if it made one. */
  fastPath: FastPathCheck | null;
}

/** `batch`: the admitted batch's id. `infra`: the reason of a train that tested nothing (the drain backs off before the next). */
export type BatchOutcome = { kind: 'done'; batch: string; infra?: string } | { kind: 'stop'; batch: string; why: StopWhy; message: string };

/** The batch being run: its id, and its halves waiting in the queue. */
export interface BatchState {
  id: string;
  waiting: JobRecord[];
}

/** One train of the batch: who rides, at which attempt, on what the drain (or a reload) read. */
export interface TrainPlan {
  members: readonly JobRecord[];
  attempt: number;
  view: Omit<PassView, 'jobs'>;
  /** The commit the train is built on (its tree is view.baseTree); absent: the target tip (view.loaded.tip). */
  base?: string;
}

export function batchIdentity(members: readonly JobRecord[]): { id: string; attempt: number } {
  const head = members[0];
  if (head?.batch && !startsBatch(head)) {
    return { id: head.batch.id, attempt: Math.max(...members.map((job) => job.batch?.attempt ?? 1)) };
  }
  return { id: newBatchId(), attempt: 1 };
}

export async function runTrains(ctx: DrainContext, pass: PassView, admitted: readonly JobRecord[]): Promise<BatchOutcome> {
  const identity = batchIdentity(admitted);
  const batch: BatchState = { id: identity.id, waiting: waitingHalves(pass.jobs, identity.id, admitted) };
  let plan: TrainPlan = { members: admitted, attempt: identity.attempt, view: pass };
  for (;;) {
    const next = await runTrain(ctx, batch, plan);
    switch (next.next) {
      case 'first_half': {
        batch.waiting.push(...next.requeued);
        // A new train: the target tip (and the policy read from it) as they are now.
        const loaded = await ctx.reloadPolicy();
        plan = { members: next.members, attempt: next.attempt, view: { loaded, baseTree: await treeOf(ctx.cwd, loaded.tip), fastPath: null } };
        continue;
      }
      case 'publish':
        await publish(ctx, plan.view.loaded, next.commit);
        return { kind: 'done', batch: batch.id };
      case 'done':
        return { kind: 'done', batch: batch.id, ...(next.infra ? { infra: next.infra } : {}) };
      case 'stop':
        return { kind: 'stop', batch: batch.id, why: next.why, message: next.message };
      default: {
        const never: never = next;
        throw new Error(`unknown next ${JSON.stringify(never)}`);
      }
    }
  }
}

async function applySteps(ctx: DrainContext, steps: Steps): Promise<void> {
  if (steps.changes.length) await applyChanges(ctx.store, steps.changes);
  for (const event of steps.events) ctx.emit(event);
}

/** The settlement's changes, window move and metrics row under one hold of the queue lock; then its events. */
async function applySettlement(ctx: DrainContext, settlement: Settlement, trainId: string, max: number): Promise<void> {
  const { window, metric } = settlement;
  if (settlement.changes.length || window || metric) {
    await ctx.store.withQueueLock(() => {
      // The row first: a kill after it leaves in_progress records that recovery settles against
      // git, which agrees with the row; the other order left landed records with no row.
      if (metric) ctx.store.appendMetric(metric);
      applyChangesLocked(ctx.store, settlement.changes);
      if (window) bumpWindow(ctx.store, window.event, max, trainId, window.decided);
    });
  }
  for (const event of settlement.events) ctx.emit(event);
}

/** The members as they are on disk now: a stop request may have arrived since they were listed. */
function reread(store: QueueStore, members: readonly JobRecord[]): JobRecord[] {
  return members.map((job) => store.readJob(job.id)).filter((job): job is JobRecord => job !== null);
}

export interface Started {
  trainId: string;
  built: BuiltTrain;
  members: JobRecord[];
  /** The riders as they were queued just before the train started (what an abandoned train puts back). */
  before: JobRecord[];
  /** Optimistic clearing: this train lands a failed train's members too (plan/settlement.ts TrainFacts.cleared). */
  cleared?: TrainFacts['cleared'];
}

/**
 * A speculative train (batch.parallel): built on the train ahead (`on`, its commit is the plan's
 * base), not on the target. `adjust` turns what its build found against that base into what it
 * means for the target (a tip contained in the train ahead is not landed yet).
 */
export interface Speculation {
  on: string;
  adjust: (built: BuiltTrain, before: readonly JobRecord[]) => Promise<{ built: BuiltTrain; back: Steps }>;
}

/** Members whose stop request arrived are settled; the others start the train, which is built. Null: nobody rides. */
export async function startTrain(ctx: DrainContext, batch: BatchState, plan: TrainPlan, spec?: Speculation): Promise<Started | null> {
  const { loaded, baseTree } = plan.view;
  const base = plan.base ?? loaded.tip;
  const stopped = withdrawals(reread(ctx.store, plan.members));
  await applySteps(ctx, stopped);
  // A member whose tip is no commit here fails on its own; the others ride (usually no git: checked at admission).
  const live = await admitTips(ctx, stopped.live);
  if (!live.length) return null;
  const trainId = ctx.store.claimTrainId(batch.id);
  const riding = await applyChanges(ctx.store, startChanges(live, batch.id, plan.attempt, trainId));
  failpoint('after-claim');
  const raw = await buildTrain(ctx.cwd, base, baseTree, riding, trainId);
  const adjusted = spec ? await spec.adjust(raw, live) : { built: raw, back: null };
  const { built } = adjusted;
  if (adjusted.back) await applySteps(ctx, adjusted.back);
  failpoint('after-train-commit');
  await applySteps(ctx, buildSteps(built, { trainId, target: loaded.target, baseTree, now: nowIso() }));
  const members = built.members.map((m) => m.job);
  if (!members.length) return null;
  ctx.counters.trains += 1;
  ctx.emit({
    type: 'train_built',
    train: trainId,
    attempt: plan.attempt,
    kind: built.kind,
    base: built.base,
    commit: built.train,
    tree: built.tree,
    members: members.map((m) => m.id),
    ...(spec ? { onTrain: spec.on } : {}),
  });
  const riders = new Set(members.map((m) => m.id));
  return { trainId, built, members, before: live.filter((job) => riders.has(job.id)) };
}

async function runTrain(ctx: DrainContext, batch: BatchState, plan: TrainPlan): Promise<Next> {
  const started = await startTrain(ctx, batch, plan);
  if (!started) return { next: 'done' };
  return settleStarted(ctx, batch, plan, started, await judgeStarted(ctx, batch, plan, started));
}

/** Judged once, and again while a lone job's flaky allowance says so (trains/rerunTrain.ts). */
export function judgeStarted(ctx: DrainContext, batch: BatchState, plan: TrainPlan, started: Started): Promise<RerunOutcome> {
  const { loaded, baseTree } = plan.view;
  const { trainId, built, members } = started;
  return judgeWithReruns(ctx, { loaded, built, baseTree, ids: { batchId: batch.id, trainId }, members, fastPath: plan.view.fastPath, attempt: plan.attempt });
}

/** The effects after the verdict (target check, lease, CAS), then the settlement, applied. */
export async function settleStarted(ctx: DrainContext, batch: BatchState, plan: TrainPlan, started: Started, judged: RerunOutcome): Promise<Next> {
  const { trainId, built, members } = started;
  const { loaded } = plan.view;
  const { judgement, runs, prior, ended } = judged;
  const found = await afterGate(ctx, { batch, plan, trainId, built, members, judgement });
  if (found.step === 'lock_lost') return { next: 'stop', why: 'lock_lost', message: 'another drainer took over the queue; this one stops without landing' };
  const facts: TrainFacts = {
    target: loaded.target,
    batchId: batch.id,
    trainId,
    attempt: plan.attempt,
    members,
    train: { kind: built.kind, base: built.base, commit: built.train, tree: built.tree },
    policy: loaded.policy,
    window: currentWindow(ctx.store, loaded.policy.batch.max),
    tally: recordedTally(ctx.store),
    waiting: batch.waiting,
    now: nowIso(),
    runs: { prior, history: runs, ...(ended ? { ended } : {}) },
    ...(started.cleared ? { cleared: started.cleared } : {}),
  };
  if (found.step === 'land') return landThroughStore(ctx, facts, judgement, started);
  const settlement = settleTrain(facts, judgement, found);
  await applySettlement(ctx, settlement, trainId, loaded.policy.batch.max);
  if (settlement.next.next === 'stop' && settlement.next.why === 'target_red') forgiveRedTarget(ctx, plan, started, judgement);
  return settlement.next;
}

/**
 * The drain stops for a red target: the FAILs it shared (the target's, this train's, every FAIL this
 * drain cached since its last PASS) are voided, so the next run gates the target and the job again (plan/redEpisode.ts).
 */
function forgiveRedTarget(ctx: DrainContext, plan: TrainPlan, started: Started, judgement: Judgement): void {
  const { loaded, baseTree } = plan.view;
  const trusted = judgement.telemetry.mode === 'none' ? undefined : judgement.telemetry.trusted?.gatedTree;
  const trees = [baseTree, started.built.tree, judgement.refreshed?.tree, trusted].filter((tree): tree is string => typeof tree === 'string');
  voidRedEpisode(ctx.store, { startedAt: ctx.startedAt, now: nowIso(), train: started.trainId, gatesHash: gatesHash(loaded.policy.gates), trees });
}

/**
 * A PASS whose target is still at the train's base, landed by the store (QueueStore.land). A
 * clone's own queue checks land's protecting hook, marks the members landing and moves the target
 * by compare-and-swap: its outcome is settled as usual. A queue kept in a remote moves the target,
 * the drainer's lease and the landed members' records in one atomic push, or nothing moves; a
 * refused push (the target or a member moved meanwhile, a cancel from another clone) is settled as
 * a withdrawal or a lost compare-and-swap.
 */
async function landThroughStore(ctx: DrainContext, facts: TrainFacts, judgement: Judgement, started: Started): Promise<Next> {
  const { store } = ctx;
  const { trainId, built, members } = started;
  const max = facts.policy.batch.max;
  const landed = settleTrain(facts, judgement, { step: 'landing', outcome: { kind: 'landed', warning: null } });
  const result = await store.land({
    cwd: ctx.cwd,
    target: facts.target,
    base: built.base,
    commit: built.train,
    message: `land: train ${trainId} (${members.map((m) => m.id).join(' ')})`,
    hookOff: () => protectHookCheck(ctx.cwd, store, facts.target),
    markLanding: () =>
      applyChanges(
        store,
        members.flatMap((job) => landingChanges([job], { commit: built.train, base: built.base, tree: built.tree, kind: landedViaOf(facts, job) })),
      ),
    recordLanded: () => applyChangesLocked(store, landed.changes),
  });
  switch (result.kind) {
    case 'tried': {
      // Settled as of the moment the compare-and-swap was tried, as every other verdict is.
      const settlement = settleTrain({ ...facts, now: nowIso() }, judgement, { step: 'landing', outcome: result.outcome });
      await applySettlement(ctx, settlement, trainId, max);
      return settlement.next;
    }
    case 'pushed':
      await applySettlement(ctx, { ...landed, changes: [] }, trainId, max);
      return landed.next;
    case 'raced':
      return settleRaced(ctx, facts, judgement, trainId);
    default: {
      const never: never = result;
      throw new Error(`unknown landing result ${JSON.stringify(never)}`);
    }
  }
}

/**
 * A landing push the remote refused; the refusal fetched the queue. A member changed from another
 * clone meanwhile (canceled, a stop request, a new tip) withdraws it: the run is void and the
 * others go back at once. Else the target moved: a lost compare-and-swap.
 */
async function settleRaced(ctx: DrainContext, facts: TrainFacts, judgement: Judgement, trainId: string): Promise<Next> {
  const max = facts.policy.batch.max;
  const fresh = reread(ctx.store, facts.members);
  const changed = (job: JobRecord) => job.state !== 'in_progress' || job.stopRequest !== null || job.tip !== facts.members.find((m) => m.id === job.id)?.tip;
  if (fresh.length < facts.members.length || fresh.some(changed)) {
    const withdrawn = settleTrain(facts, judgement, { step: 'withdrawn', fresh: fresh.filter((job) => job.state === 'in_progress') });
    await applySettlement(ctx, { ...withdrawn, changes: withdrawn.changes.map((change) => ({ ...change, lenient: true })) }, trainId, max);
    return withdrawn.next;
  }
  const actual = await targetTip(ctx.cwd, ctx.store, facts.target);
  const lost = settleTrain(facts, judgement, { step: 'landing', outcome: { kind: 'lost', actual } });
  // A member canceled from another clone is no longer in_progress here: it is left as it is.
  await applySettlement(ctx, { ...lost, changes: lost.changes.map((change) => ({ ...change, lenient: true })) }, trainId, max);
  return lost.next;
}

/**
 * The effects between the verdict and its settlement. Post-gate checkpoint: a member stopped
 * while the gate ran voids the run. A lone job that failed: is the target itself red? A PASS: the
 * lease is checked and the CAS tried.
 */
async function afterGate(
  ctx: DrainContext,
  train: { batch: BatchState; plan: TrainPlan; trainId: string; built: BuiltTrain; members: JobRecord[]; judgement: Judgement },
): Promise<Found | { step: 'lock_lost' } | { step: 'land' }> {
  const { judgement, members, built, plan } = train;
  if (judgement.verdict === 'STOPPED') return { step: 'judged' };
  const fresh = reread(ctx.store, members);
  if (withdrawals(fresh).dropped > 0) return { step: 'withdrawn', fresh };
  const { loaded, baseTree } = plan.view;
  const effect = effectNeeded(judgement, members);
  if (effect === 'none') return { step: 'judged' };
  if (effect === 'target_check') {
    const job = (members[0] as JobRecord).id;
    return { step: 'target_checked', health: await checkTarget(ctx, { loaded, base: built.base, baseTree, batchId: train.batch.id, job }) };
  }
  // The lease: a drainer that lost its lock (another took over and recovered these jobs) must
  // not land. The holder file still names this drainer, and its heartbeat saw no takeover.
  if (!ctx.holds()) return { step: 'lock_lost' };
  // The target must still be where the train was built before the landing is recorded: a target
  // moved meanwhile (by anyone, a gate included) is an outside change and the train is rebuilt.
  // So a recorded landing always names a train that was about to be CASed from its base, and
  // recovery never takes a train someone else put into the target for one this drainer landed.
  const moved = await targetStillAt(ctx.cwd, ctx.store.targetRef(loaded.target), built.base);
  if (moved) return { step: 'landing', outcome: moved };
  // The store lands it: a compare-and-swap of the target, or one push (landThroughStore).
  return { step: 'land' };
}

export async function publish(ctx: DrainContext, loaded: LoadedPolicy, commit: string): Promise<void> {
  const published = await publishLanding({ cwd: ctx.cwd, store: ctx.store, policy: loaded.policy, target: loaded.target, commit });
  const event: DrainEvent | null =
    published.kind === 'pushed'
      ? { type: 'published', remote: published.remote, commit }
      : published.kind === 'rejected'
        ? { type: 'publish_rejected', remote: published.remote, message: published.message }
        : null;
  if (event) ctx.emit(event);
}
