// One train in flight in the pipeline (batch.parallel): started (claimed and built), its judgement
// running in the background with its own stop switch, and, while the train ahead of it has not
// landed, its verdict writes held back. Abandoning it stops its gates, waits for them, drops the
// held writes and puts its members back exactly as they were queued.
import { isAncestor } from '../../git/index.js';
import { applyChangesLocked, nowIso } from '../../queue/index.js';
import type { JobRecord, MetricsRow, VoidReason } from '../../store/index.js';
import { voidRow } from '../plan/settlement.js';
import { currentWindow } from '../window.js';
import type { BuiltTrain } from '../trains/buildTrain.js';
import type { Judgement } from '../gates/judgement.js';
import type { RerunOutcome } from '../trains/rerunTrain.js';
import { judgeStarted, startTrain, type BatchState, type DrainContext, type Speculation, type Started, type TrainPlan } from '../trains/runTrains.js';
import { abandonSteps, speculativeBuild } from './abandon.js';

export interface Flight {
  batchId: string;
  plan: TrainPlan;
  started: Started;
  /** The train this one was built on; null for a train built on the target. */
  on: string | null;
  /** A train of a bisection (a first half, or a second half from the queue): worth a probe (./probe.ts). */
  bisecting: boolean;
  /** Stops this train's gates alone (the drain's second signal stops them all). */
  stop: AbortController;
  /** The judgement, never rejected: an error is kept and rethrown when the train is settled. */
  judged: Promise<{ ok: true; judged: RerunOutcome } | { ok: false; error: unknown }>;
  /**
   * Verdict writes held while the train is speculative; `writes` null once the train ahead has
   * landed. `landed` wakes what waits for that (a re-run: ../trains/rerunTrain.ts).
   */
  hold: { writes: (() => void)[] | null; landed: (() => void)[] };
  /** Whether its first run passed: known at its verdict, or at its first FAIL (before any re-run waits for the train ahead). */
  firstPass: Promise<boolean>;
}

/** What a speculative build needs: the real target tip, and the jobs it holds out of speculation. */
export interface SpecSource {
  targetTip: string;
  holdOut: (ids: readonly string[]) => void;
}

function speculation(ctx: DrainContext, on: Flight, source: SpecSource): Speculation {
  return {
    on: on.started.trainId,
    adjust: async (built: BuiltTrain, before: readonly JobRecord[]) => {
      const inTarget = new Set<string>();
      for (const job of built.contained) if (await isAncestor(ctx.cwd, job.tip, source.targetTip)) inTarget.add(job.id);
      const out = speculativeBuild(built, before, inTarget, on.started.trainId);
      source.holdOut(out.held);
      return { built: out.built, back: out.back };
    },
  };
}

/**
 * How a train is launched: on the target (`on` null) or speculatively on a train in flight; a
 * bisection's first half; with `behindPassed` (optimistic clearing), asked after its FAIL whether
 * the train built on it passed.
 */
export interface LaunchOptions {
  on: { flight: Flight; source: SpecSource } | null;
  firstHalf?: boolean;
  behindPassed?: (trainId: string, judgement: Judgement) => Promise<boolean>;
}

/** Starts a train (on the target, or speculatively on `on`) and its judgement; null when nobody rides. */
export async function launch(ctx: DrainContext, batch: BatchState, plan: TrainPlan, opts: LaunchOptions): Promise<Flight | null> {
  const { on } = opts;
  const stop = new AbortController();
  const hold: Flight['hold'] = { writes: on ? [] : null, landed: [] };
  const abort = AbortSignal.any([ctx.abort, stop.signal]);
  let firstFail = () => {};
  const failedFirst = new Promise<false>((resolve) => {
    firstFail = () => resolve(false);
  });
  const own: DrainContext = {
    ...ctx,
    abort,
    keep: (write) => (hold.writes ? hold.writes.push(write) : write()),
    aheadLanded: () => {
      firstFail();
      return aheadLanded(hold, abort);
    },
  };
  const started = await startTrain(own, batch, plan, on ? speculation(ctx, on.flight, on.source) : undefined);
  if (!started) return null;
  const { behindPassed } = opts;
  const judging: DrainContext = behindPassed ? { ...own, behindPassed: (judgement) => behindPassed(started.trainId, judgement) } : own;
  const judged = judgeStarted(judging, batch, plan, started).then(
    (value) => ({ ok: true as const, judged: value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const passed = judged.then((result) => result.ok && result.judged.judgement.verdict === 'PASS');
  const firstPass = Promise.race([passed, failedFirst]);
  const bisecting = opts.firstHalf === true || started.before.every((job) => job.requeued && job.reason === 'bisected');
  return { batchId: batch.id, plan, started, on: on ? on.flight.started.trainId : null, bisecting, stop, judged, hold, firstPass };
}

/** Resolves once the train ahead has landed (at once for a train built on the target), or this train is stopped. */
function aheadLanded(hold: Flight['hold'], abort: AbortSignal): Promise<void> {
  if (hold.writes === null || abort.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    hold.landed.push(resolve);
    abort.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** The train ahead landed: this train is no longer speculative, and what it held is written. */
export function confirm(flight: Flight): void {
  const held = flight.hold.writes ?? [];
  flight.hold.writes = null;
  for (const write of held) write();
  for (const wake of flight.hold.landed.splice(0)) wake();
}

/** The judgement, rethrowing what it threw. */
export async function verdictOf(flight: Flight): Promise<RerunOutcome> {
  const result = await flight.judged;
  if (!result.ok) throw result.error;
  return result.judged;
}

/**
 * Stops the gates of these trains (all at once), waits for them, and puts their members back. Each
 * train's void row (plan/settlement.ts voidRow: the gates it ran were spent) is written with them.
 */
export async function abandon(ctx: DrainContext, flights: readonly Flight[], after: string, why: string): Promise<void> {
  for (const flight of flights) flight.stop.abort();
  for (const flight of flights) {
    const judged = await flight.judged;
    flight.hold.writes = [];
    const steps = abandonSteps(flight.started.before, { train: flight.started.trainId, after, why });
    const row = judged.ok ? voidedRow(ctx, flight, judged.judged, 'speculation_abandoned') : null;
    await ctx.store.withQueueLock(() => {
      if (row) ctx.store.appendMetric(row);
      applyChangesLocked(ctx.store, steps.changes);
    });
    for (const event of steps.events) ctx.emit(event);
  }
}

/** The void row of a train in flight: abandoned behind a train that did not land, or cleared by the train behind it (./clearing.ts). */
export function voidedRow(ctx: DrainContext, flight: Flight, judged: RerunOutcome, reason: VoidReason): MetricsRow {
  const { started, plan, batchId } = flight;
  const { built } = started;
  const facts = {
    now: nowIso(),
    trainId: started.trainId,
    batchId,
    attempt: plan.attempt,
    members: started.members,
    train: { kind: built.kind, base: built.base, commit: built.train, tree: built.tree },
    runs: { prior: judged.prior, history: judged.runs },
    window: currentWindow(ctx.store, plan.view.loaded.policy.batch.max),
  };
  return voidRow(facts, judged.judgement, reason);
}

/** Stops the gates of these trains and waits for them, writing nothing (the queue is no longer this drainer's). */
export async function dropAll(flights: readonly Flight[]): Promise<void> {
  for (const flight of flights) flight.stop.abort();
  for (const flight of flights) {
    await flight.judged;
    flight.hold.writes = [];
  }
}
