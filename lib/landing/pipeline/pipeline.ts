// batch.parallel above 1: a pipeline of trains in flight, head first. The head is built on the
// target tip; each train behind it is built on the commit of the train ahead (assuming it passes)
// and gates at the same time. Trains settle strictly in order, each as a lone train settles
// (plan/settlement.ts): when the head lands, the next one is the head, its base now the target
// (checked again before its own CAS).
// When the head does not land, every train behind it is abandoned (gates stopped, members put back
// as they were, nothing recorded as their verdict) and planned again. With flaky.clearing, a head
// that failed is first cleared by the train behind it when that one passed: both land as one
// (./clearing.ts). The next speculative train is
// planned with the same pure planTrain over the runnable jobs (those in flight are not runnable).
// How the spare slots are spent (probes of either outcome of the head, or trains behind it) is
// plan/speculation.ts's choice, from the culprit rate.
import type { LoadedPolicy } from '../../config/index.js';
import { treeOf } from '../../git/index.js';
import type { JobRecord } from '../../store/index.js';
import type { Next } from '../plan/settlement.js';
import { slotUses, trainPastCulprit, type HeadShape } from '../plan/speculation.js';
import { planTrain, waitingHalves } from '../plan/trainPlan.js';
import { expectedRate } from '../plan/windowPlan.js';
import { batchIdentity, publish, settleStarted, type BatchOutcome, type DrainContext, type PassView, type TrainPlan } from '../trains/runTrains.js';
import { currentWindow, recordedTally } from '../window.js';
import type { RerunOutcome } from '../trains/rerunTrain.js';
import type { Judgement } from '../gates/judgement.js';
import { clearable, clearingRefusal, settleCleared } from './clearing.js';
import { abandon, confirm, dropAll, launch, verdictOf, type Flight } from './flight.js';
import { cachedHeadVerdict, dropProbe, headSpot, keepProbe, pastCulpritSpot, pastLoneSpot, probeHolds, startProbe, type Probe } from './probe.js';

export interface PipelineOptions {
  /** batch.parallel: the most trains in flight. */
  parallel: number;
  /** --once: only the first batch (and its bisection) rides; nothing of another batch is speculated. */
  once: boolean;
  /** A stop request (first signal, or the drain lock lost): no new train is started. */
  stopAsked: () => boolean;
  /** The runnable jobs of this drain's target, in landing order, read now. */
  runnable: () => Promise<JobRecord[]>;
}

interface Pipeline {
  ctx: DrainContext;
  opts: PipelineOptions;
  flights: Flight[];
  /** The first batch's id (what --once runs to its end). */
  first: string;
  /** Jobs a speculative build put back (contained in or conflicting with a train ahead): not speculated again in this run. */
  held: Set<string>;
  /** The trains being added behind the last one, while the head gates and settles. */
  filling: Promise<void>;
  /** The head's probes (./probe.ts): at most one of each branch. */
  probes: Probe[];
  /** The second half waiting behind the head when the head is the first half of a failed train. */
  second: { train: string; jobs: JobRecord[] } | null;
}

/** Trains in flight, the probes included: at most batch.parallel. */
const room = (p: Pipeline) => p.flights.length + p.probes.length < p.opts.parallel;

/** What is known of the head's culprits (plan/speculation.ts). */
function shapeOf(p: Pipeline, head: Flight): HeadShape {
  const size = head.started.members.length;
  if (p.second?.train === head.started.trainId) return { size, known: 'first_half', sibling: p.second.jobs.length };
  // A second half from the queue: its first half passed, so it holds the culprit.
  return { size, known: head.bisecting ? 'holds_one' : 'fresh', sibling: 0 };
}

/** Waits for the trains being added (so that an abandonment covers them too). */
const filled = (p: Pipeline) => p.filling;

/** The next speculative train, planned over the runnable jobs, built on the last train in flight. */
async function planBehind(p: Pipeline, last: Flight): Promise<{ plan: TrainPlan; batch: { id: string; waiting: JobRecord[] } } | null> {
  const runnable = (await p.opts.runnable()).filter((job) => !p.held.has(job.id));
  const { loaded } = last.plan.view;
  const members = planTrain(runnable, currentWindow(p.ctx.store, loaded.policy.batch.max));
  if (!members.length) return null;
  const identity = batchIdentity(members);
  if (p.opts.once && identity.id !== p.first) return null;
  const { built } = last.started;
  return {
    plan: { members, attempt: identity.attempt, view: { loaded, baseTree: built.tree, fastPath: null }, base: built.train },
    batch: { id: identity.id, waiting: [] },
  };
}

/** Starts the head's probe of this branch unless it has one. */
async function startHeadProbe(p: Pipeline, head: Flight, branch: 'fails' | 'passes'): Promise<void> {
  if (p.probes.some((probe) => probe.branch === branch)) return;
  const probe = await startProbe(p.ctx, headSpot(head, branch, p.second?.jobs ?? []), branch);
  if (probe) p.probes.push(probe);
}

/** Fills the pipeline up to batch.parallel: the head's probes, then trains behind it (each on the one ahead), as plan/speculation.ts spends the slots. */
async function fill(p: Pipeline): Promise<void> {
  const head = p.flights[0];
  if (!head) return;
  if (!room(p)) return;
  // A lone head known to hold a culprit (most often a second half, its batch's cached FAIL) is
  // failed once the flaky rule is sure, which may take re-runs: the train past it is gated meanwhile.
  const cached = await cachedHeadVerdict(p.ctx, head);
  if (head.started.members.length === 1 && (cached === 'FAIL' || shapeOf(p, head).known === 'holds_one')) return startPastLone(p, head);
  // Any other head judged before settles at once: no bet on it; the next head's fill spends the slots.
  if (cached !== null) return;
  for (const use of slotUses(shapeOf(p, head), expectedRate(recordedTally(p.ctx.store)))) {
    if (!room(p) || p.opts.stopAsked()) return;
    if (use === 'behind') await fillBehind(p);
    else if (use === 'past_culprit') await startPastCulprit(p, head);
    else await startHeadProbe(p, head, use);
  }
}

/**
 * The head is a first half whose second half is one job: should the head pass, that job fails
 * alone from the cache. The train planned after it, without it, is probed on the head's commit.
 */
async function startPastCulprit(p: Pipeline, head: Flight): Promise<void> {
  const culprit = p.second?.jobs[0];
  if (!culprit || p.opts.once || p.probes.some((probe) => probe.branch === 'passes')) return;
  const runnable = (await p.opts.runnable()).filter((job) => !p.held.has(job.id));
  const max = head.plan.view.loaded.policy.batch.max;
  const train = trainPastCulprit(runnable, culprit, head.started.members.length, recordedTally(p.ctx.store), max);
  if (!train.length) return;
  const probe = await startProbe(p.ctx, pastCulpritSpot(head, train), 'passes');
  if (probe) p.probes.push(probe);
}

/** The train planned after the lone head is failed, without it, probed on the head's base (the target). */
async function startPastLone(p: Pipeline, head: Flight): Promise<void> {
  const culprit = head.started.members[0];
  if (!culprit || p.opts.once || p.probes.some((probe) => probe.branch === 'past_lone')) return;
  const runnable = (await p.opts.runnable()).filter((job) => !p.held.has(job.id));
  const max = head.plan.view.loaded.policy.batch.max;
  const train = trainPastCulprit(runnable, culprit, 0, recordedTally(p.ctx.store), max);
  if (!train.length) return;
  const probe = await startProbe(p.ctx, pastLoneSpot(head, train), 'past_lone');
  if (probe) p.probes.push(probe);
}

/** Trains behind the last one in flight, each on the one ahead, while there is room. */
async function fillBehind(p: Pipeline): Promise<void> {
  // A plan whose riders all left (canceled, contained, conflicting) is planned again; a few times at most.
  for (let tries = 0; room(p) && tries < 4 && !p.opts.stopAsked(); tries += 1) {
    const last = p.flights.at(-1);
    if (!last) return;
    const next = await planBehind(p, last);
    if (!next) return;
    const source = {
      targetTip: headTip(p),
      holdOut: (ids: readonly string[]) => {
        for (const id of ids) p.held.add(id);
      },
    };
    const flight = await launch(p.ctx, next.batch, next.plan, { on: { flight: last, source }, behindPassed: clearingFor(p, next.plan) });
    if (flight) p.flights.push(flight);
  }
}

/** The target tip the head was built on (the target as this drainer knows it). */
function headTip(p: Pipeline): string {
  const head = p.flights[0] as Flight;
  return head.plan.base ?? head.plan.view.loaded.tip;
}

/** A train built on the target tip as it is now (the first half of a failed batch). */
async function reloaded(ctx: DrainContext): Promise<Omit<PassView, 'jobs'>> {
  const loaded = await ctx.reloadPolicy();
  return { loaded, baseTree: await treeOf(ctx.cwd, loaded.tip), fastPath: null };
}

/**
 * Optimistic clearing (./clearing.ts): with flaky.clearing, a train's FAIL asks, before any re-run,
 * whether the train built on it clears it (the same answer its settlement gets).
 */
function clearingFor(p: Pipeline, plan: TrainPlan): ((trainId: string, judgement: Judgement) => Promise<boolean>) | undefined {
  if (p.opts.parallel < 2 || !plan.view.loaded.policy.flaky.clearing) return undefined;
  return async (trainId, judgement) => 'behind' in (await clearingBehind(p, trainId, judgement));
}

/** The train in flight built on this one, once the trains being added are in. */
async function trainBehind(p: Pipeline, trainId: string): Promise<Flight | undefined> {
  await filled(p);
  return p.flights.find((flight) => flight.on === trainId);
}

/**
 * The train behind this failed one whose PASS clears it (./clearing.ts clearingRefusal); or why a
 * train behind that passed cannot (`refused`); or nothing to clear with. Its first run is awaited
 * (a FAIL of it answers at once).
 */
async function clearingBehind(
  p: Pipeline,
  trainId: string,
  judgement: Judgement,
): Promise<{ behind: Flight } | { refused: string; by: string } | { none: true }> {
  const none = { none: true } as const;
  const head = p.flights.find((flight) => flight.started.trainId === trainId);
  const policy = head?.plan.view.loaded.policy;
  if (!head || !policy || p.opts.parallel < 2 || !clearable(policy, judgement)) return none;
  const behind = await trainBehind(p, trainId);
  if (!behind || !(await behind.firstPass)) return none;
  const judged = await behind.judged;
  if (!judged.ok) return none;
  const refused = clearingRefusal(policy, {
    head: { judgement, commit: head.started.built.train },
    behind: { judgement: judged.judged.judgement, base: behind.plan.base },
  });
  return refused === null ? { behind } : { refused, by: behind.started.trainId };
}

/** The head settled as today: the effects after its verdict, the settlement, applied. Trains behind a head that did not land are abandoned first. */
async function settleHead(p: Pipeline): Promise<{ next: Next; landed: boolean }> {
  const head = p.flights[0] as Flight;
  const judged = await verdictOf(head);
  const clearing = await clearingBehind(p, head.started.trainId, judged.judgement);
  if ('behind' in clearing && clearing.behind === p.flights[1]) return settleClearedHead(p, head, judged, clearing.behind);
  if ('refused' in clearing) p.ctx.emit({ type: 'clearing_refused', train: head.started.trainId, by: clearing.by, why: clearing.refused });
  const trainId = head.started.trainId;
  // A verdict that is no PASS voids the trains behind before it is settled (a culprit found
  // rejoins the halves of its batch, those put back included). A PASS is settled (CAS) while
  // the trains behind are still being added.
  if (judged.judgement.verdict !== 'PASS') {
    await filled(p);
    if (p.flights.length > 1) await abandon(p.ctx, p.flights.slice(1), trainId, `train ${trainId} ahead did not pass (${judged.judgement.verdict})`);
    p.flights.length = 1;
  }
  const { jobs } = p.ctx.store.listJobs();
  const batch = { id: head.batchId, waiting: waitingHalves(jobs, head.batchId, head.started.members) };
  const next = await settleStarted(p.ctx, batch, head.plan, head.started, judged);
  const landed = next.next === 'publish';
  await filled(p);
  // A landing is published before its probes are kept (a probe may still be gating).
  if (!landed) await settleProbes(p, trainId, next, failedAlone(p, head, next));
  p.flights.shift();
  if (!landed) await abandonAll(p, next, trainId);
  return { next, landed };
}

/** After a head that did not land: every train behind it is abandoned (only stopped when the drain lock is lost). */
async function abandonAll(p: Pipeline, next: Next, trainId: string): Promise<void> {
  if (!p.flights.length) return;
  if (next.next === 'stop' && next.why === 'lock_lost') await dropAll(p.flights);
  else await abandon(p.ctx, p.flights, trainId, `train ${trainId} ahead did not land`);
  p.flights.length = 0;
}

/**
 * The failed head cleared by the train behind it: the head's probes are dropped (their bets were on
 * the head alone), both trains settle as one, and leave the pipeline. Landed: the held verdict
 * writes of the train behind are written (its tree passed) and the trains behind it go on.
 */
async function settleClearedHead(p: Pipeline, head: Flight, judged: RerunOutcome, behind: Flight): Promise<{ next: Next; landed: boolean }> {
  for (const probe of p.probes.splice(0)) await dropProbe(p.ctx, probe);
  const next = await settleCleared(p.ctx, head, judged, behind, await verdictOf(behind));
  const landed = next.next === 'publish';
  await filled(p);
  p.flights.splice(0, 2);
  if (landed) confirm(behind);
  else {
    behind.hold.writes = [];
    await abandonAll(p, next, behind.started.trainId);
  }
  return { next, landed };
}

/**
 * The head settled: each of its probes is kept when its assumption came true (./probe.ts
 * probeHolds), else dropped. With the drain lock lost, nothing is written (the queue is no longer
 * this drainer's): the probes are only stopped.
 */
async function settleProbes(p: Pipeline, trainId: string, next: Next, alone = false): Promise<void> {
  const lost = next.next === 'stop' && next.why === 'lock_lost';
  for (const probe of p.probes.splice(0)) {
    if (lost) await stopProbe(probe);
    else if (probeHolds(probe, trainId, next, alone)) await keepProbe(probe);
    else await dropProbe(p.ctx, probe);
  }
}

/** The head was one job and its settlement failed it (what a `past_lone` probe assumes). */
function failedAlone(p: Pipeline, head: Flight, next: Next): boolean {
  const [job] = head.started.members;
  return head.started.members.length === 1 && next.next === 'done' && job !== undefined && p.ctx.store.readJob(job.id)?.state === 'failed';
}

/** Stops a probe's gates and waits for them, keeping and writing nothing. */
async function stopProbe(probe: Probe): Promise<void> {
  probe.stop.abort();
  await probe.done;
}

/** After a landing: the next train's base is the target now; a policy changed by the landing voids the trains behind. */
async function promote(p: Pipeline, landedTrain: string): Promise<void> {
  const head = p.flights[0];
  if (!head) return;
  const loaded: LoadedPolicy = await p.ctx.reloadPolicy();
  if (JSON.stringify(loaded.policy) !== JSON.stringify(head.plan.view.loaded.policy)) {
    await abandon(p.ctx, p.flights, landedTrain, `the policy changed with train ${landedTrain}`);
    p.flights.length = 0;
    return;
  }
  for (const flight of p.flights) flight.plan = { ...flight.plan, view: { ...flight.plan.view, loaded } };
  confirm(head);
}

/** Starts the first train of a failed batch's first half, or of the pass, on the target tip. */
async function startHead(p: Pipeline, plan: TrainPlan, batchId: string, waiting: JobRecord[], firstHalf = false): Promise<boolean> {
  const flight = await launch(p.ctx, { id: batchId, waiting }, plan, { on: null, firstHalf, behindPassed: clearingFor(p, plan) });
  if (flight) p.flights.push(flight);
  return flight !== null;
}

/** Runs the pipeline from the pass's first train until nothing is in flight (or a stop). */
export async function runPipeline(ctx: DrainContext, opts: PipelineOptions, pass: PassView, admitted: readonly JobRecord[]): Promise<BatchOutcome> {
  const identity = batchIdentity(admitted);
  const p: Pipeline = { ctx, opts, flights: [], first: identity.id, held: new Set(), filling: Promise.resolve(), probes: [], second: null };
  try {
    const waiting = waitingHalves(pass.jobs, identity.id, admitted);
    if (!(await startHead(p, { members: admitted, attempt: identity.attempt, view: pass }, identity.id, waiting))) return { kind: 'done', batch: p.first };
    for (;;) {
      p.filling = fill(p);
      p.filling.catch(() => undefined); // handled where it is awaited; never an unhandled rejection meanwhile
      const head = p.flights[0] as Flight;
      const { next } = await settleHead(p);
      switch (next.next) {
        case 'publish':
          await publish(ctx, head.plan.view.loaded, next.commit);
          await settleProbes(p, head.started.trainId, next);
          await promote(p, head.started.trainId);
          break;
        case 'first_half':
          if (await startHead(p, { members: next.members, attempt: next.attempt, view: await reloaded(ctx) }, head.batchId, [], true))
            p.second = { train: (p.flights[0] as Flight).started.trainId, jobs: next.requeued };
          break;
        case 'done':
          if (next.infra) return { kind: 'done', batch: p.first, infra: next.infra };
          break;
        case 'stop':
          return { kind: 'stop', batch: p.first, why: next.why, message: next.message };
      }
      if (!p.flights.length) return { kind: 'done', batch: p.first };
    }
  } catch (error) {
    await p.filling.catch(() => undefined);
    for (const probe of p.probes.splice(0)) await stopProbe(probe);
    await dropAll(p.flights);
    throw error;
  }
}
