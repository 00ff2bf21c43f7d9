// A probe (batch.parallel above 1): while the head gates, the train the drain would gate next on
// one outcome of the head is built and gated in a spare slot (plan/speculation.ts chooses which):
// - `fails`: the head's first part, built on the head's base, assuming the head fails;
// - `passes`: the first part of the head's waiting second half, built on the head's commit,
//   assuming the head passes (the second half alone on it is then a cached FAIL, split at once);
// - `past_lone`: the head is one job known to hold a culprit (its FAIL is being confirmed by
//   re-runs, plan/flakyPlan.ts): the train planned after it fails, on the head's base, assuming it fails.
// A probe is no train of jobs: no record changes, no window move; only its verdict about the tree,
// and only when its assumption came true: the head failed and split into exactly that half, or the
// head landed (its commit is the target: a train of that part built on it has the probe's tree).
// Then that train's verdict comes from the cache at once. Otherwise the probe's gates are killed,
// nothing it found is kept, and its metrics row says VOID, speculation_abandoned (its runs were spent).
import type { JobRecord } from '../../store/index.js';
import { nowIso } from '../../queue/index.js';
import { buildTrain } from '../trains/buildTrain.js';
import { gatesHash } from '../../config/index.js';
import { judgeTrain } from '../gates/judge.js';
import { gatedTreeOf } from '../gates/trusted.js';
import { cachedVerdict } from '../gates/verdictCache.js';
import type { Judgement } from '../gates/judgement.js';
import type { Next } from '../plan/settlement.js';
import { voidRow } from '../plan/settlement.js';
import { splitFailed } from '../plan/trainPlan.js';
import { expectedRate } from '../plan/windowPlan.js';
import { currentWindow, recordedTally } from '../window.js';
import type { DrainContext } from '../trains/runTrains.js';
import type { BuiltTrain } from '../trains/buildTrain.js';
import type { Flight } from './flight.js';

export interface Probe {
  /** Which outcome of the head it assumes (`past_lone`: the lone head is failed). */
  branch: 'fails' | 'passes' | 'past_lone';
  /** The train (the head) whose outcome it assumes. */
  forTrain: string;
  batchId: string;
  /** The head's attempt and batch.max (what the probe's void row names). */
  attempt: number;
  max: number;
  trainId: string;
  built: BuiltTrain;
  jobs: JobRecord[];
  /** The half's job ids, in merge order. */
  members: string[];
  stop: AbortController;
  /** The probe's verdict writes, kept only when its half is the next train. */
  hold: { writes: (() => void)[] };
  /** The judgement, ended (never rejected; null when it threw). */
  done: Promise<Judgement | null>;
}

/** Where a probe is built and what it assumes: the train (or probe) whose outcome it bets on, and the base its part goes on. */
export interface ProbeSpot {
  forTrain: string;
  batchId: string;
  attempt: number;
  loaded: Flight['plan']['view']['loaded'];
  base: string;
  baseTree: string;
  /** The failed (or assumed failed) members whose first part the probe gates. */
  of: readonly JobRecord[];
  /** Gate `of` whole (a train planned past a culprit), not its first part. */
  whole?: boolean;
}

/**
 * The spot of a probe of the head: `fails`, the head's first part on the head's base; `passes`,
 * the first part of `second` (the head's waiting second half) on the head's commit.
 */
export function headSpot(head: Flight, branch: 'fails' | 'passes', second: readonly JobRecord[]): ProbeSpot {
  const { built } = head.started;
  const [base, baseTree] = branch === 'fails' ? [built.base, head.plan.view.baseTree] : [built.train, built.tree];
  const of = branch === 'fails' ? head.started.members : second;
  return { forTrain: head.started.trainId, batchId: head.batchId, attempt: head.plan.attempt, loaded: head.plan.view.loaded, base, baseTree, of };
}

/** The spot of the train planned past the lone culprit behind the head (plan/speculation.ts trainPastCulprit), on the head's commit. */
export const pastCulpritSpot = (head: Flight, train: readonly JobRecord[]): ProbeSpot => ({ ...headSpot(head, 'passes', []), of: train, whole: true });

/** The spot of the train planned past the lone head, should it be failed (plan/speculation.ts trainPastCulprit), on the head's base. */
export const pastLoneSpot = (head: Flight, train: readonly JobRecord[]): ProbeSpot => ({ ...headSpot(head, 'fails', []), of: train, whole: true });

/** The head's verdict in the verdict cache, if it has one (a PASS settles at once: no bet on it). */
export async function cachedHeadVerdict(ctx: DrainContext, head: Flight): Promise<'PASS' | 'FAIL' | null> {
  const { policy } = head.plan.view.loaded;
  const { built } = head.started;
  const gated = await gatedTreeOf(ctx.cwd, policy, built.base, built.tree);
  return cachedVerdict(ctx.store, gated.tree, gatesHash(policy.gates), head.started.members)?.verdict ?? null;
}

/** Builds the first part of the spot's members on its base and starts its gates; null when the part does not build cleanly. */
export async function startProbe(ctx: DrainContext, spot: ProbeSpot, branch: Probe['branch']): Promise<Probe | null> {
  const first = spot.whole ? [...spot.of] : splitFailed(spot.of, expectedRate(recordedTally(ctx.store))).first;
  const { loaded, base, baseTree, batchId } = spot;
  const trainId = ctx.store.claimTrainId(`${batchId}-probe`);
  const built = await buildTrain(ctx.cwd, base, baseTree, first, trainId);
  if (built.members.length !== first.length) return null; // a member contained or conflicting: the half would not be this tree
  const members = first.map((job) => job.id);
  const assumes = branch === 'past_lone' ? { assumes: 'fails' as const, past: true } : { assumes: branch };
  ctx.emit({ type: 'probe_started', train: trainId, for: spot.forTrain, ...assumes, members, commit: built.train });
  const stop = new AbortController();
  const hold: Probe['hold'] = { writes: [] };
  const own: DrainContext = { ...ctx, abort: AbortSignal.any([ctx.abort, stop.signal]), keep: (write) => hold.writes.push(write) };
  const done = judgeTrain(own, { loaded, built, baseTree, ids: { batchId, trainId }, members: first }).then(
    (judgement) => judgement,
    () => null,
  );
  return {
    branch,
    forTrain: spot.forTrain,
    batchId,
    attempt: spot.attempt,
    max: loaded.policy.batch.max,
    trainId,
    built,
    jobs: first,
    members,
    stop,
    hold,
    done,
  };
}

/**
 * Whether the probe's assumption came true when `forTrain` settled to `next` (then its verdict is
 * kept); `failedAlone`: the head was one job, and it was failed.
 */
export function probeHolds(probe: Pick<Probe, 'branch' | 'forTrain' | 'members'>, forTrain: string, next: Next, failedAlone = false): boolean {
  if (probe.forTrain !== forTrain) return false;
  if (probe.branch === 'passes') return next.next === 'publish';
  if (probe.branch === 'past_lone') return failedAlone;
  return next.next === 'first_half' && probedHalf(probe, forTrain, next.members);
}

/** Its assumption came true: the probe's verdict is waited for and recorded. */
export async function keepProbe(probe: Probe): Promise<void> {
  await probe.done;
  for (const write of probe.hold.writes.splice(0)) write();
}

/**
 * Anything else: the probe's gates are killed and nothing it found is kept; its row (VOID,
 * speculation_abandoned) keeps the runs it spent for `land stats`.
 */
export async function dropProbe(ctx: DrainContext, probe: Probe): Promise<void> {
  probe.stop.abort();
  const judgement = await probe.done;
  probe.hold.writes.length = 0;
  ctx.emit({ type: 'probe_dropped', train: probe.trainId, for: probe.forTrain });
  if (!judgement || judgement.cached) return;
  const { built } = probe;
  const facts = {
    now: nowIso(),
    trainId: probe.trainId,
    batchId: probe.batchId,
    attempt: probe.attempt,
    members: probe.jobs,
    train: { kind: built.kind, base: built.base, commit: built.train, tree: built.tree },
    window: currentWindow(ctx.store, probe.max),
  };
  const row = voidRow(facts, judgement, 'speculation_abandoned');
  await ctx.store.withQueueLock(() => ctx.store.appendMetric(row));
}

/** Whether the next train is the probed half (same members, same order). */
export const probedHalf = (probe: Pick<Probe, 'forTrain' | 'members'>, forTrain: string, members: readonly { id: string }[]): boolean =>
  probe.forTrain === forTrain && probe.members.length === members.length && probe.members.every((id, i) => members[i]?.id === id);
