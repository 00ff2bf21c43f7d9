// A probe (batch.parallel above 1): while the head gates, the train the drain would gate next on
// one outcome of the head is built and gated in a spare slot (plan/speculation.ts chooses which):
// - `fails`: the head's first part, built on the head's base, assuming the head fails;
// - `passes`: the first part of the head's waiting second half, built on the head's commit,
//   assuming the head passes (the second half alone on it is then a cached FAIL, split at once).
// A probe is no train of jobs: no record changes, no window move; only its verdict about the tree,
// and only when its assumption came true: the head failed and split into exactly that half, or the
// head landed (its commit is the target: a train of that part built on it has the probe's tree).
// Then that train's verdict comes from the cache at once. Otherwise the probe's gates are killed,
// nothing it found is kept, and its metrics row says VOID, speculation_abandoned (its runs were spent).
import type { JobRecord } from '../../store/index.js';
import { nowIso } from '../../queue/index.js';
import { buildTrain } from '../trains/buildTrain.js';
import { judgeTrain } from '../gates/judge.js';
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
  /** Which outcome of the head it assumes. */
  branch: 'fails' | 'passes';
  /** The train (the head) whose outcome it assumes. */
  forTrain: string;
  batchId: string;
  /** The head's attempt (what the probe's void row names). */
  attempt: number;
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

/**
 * Builds the part a probe gates and starts its gates; null when the part does not build cleanly.
 * `fails`: the head's first part on the head's base; `passes`: the first part of `second` (the
 * head's waiting second half) on the head's commit.
 */
export async function startProbe(ctx: DrainContext, head: Flight, branch: Probe['branch'], second: readonly JobRecord[]): Promise<Probe | null> {
  const rate = expectedRate(recordedTally(ctx.store));
  const { built: train } = head.started;
  const { loaded } = head.plan.view;
  const { first } = splitFailed(branch === 'fails' ? head.started.members : second, rate);
  const [base, baseTree] = branch === 'fails' ? [train.base, head.plan.view.baseTree] : [train.train, train.tree];
  const trainId = ctx.store.claimTrainId(`${head.batchId}-probe`);
  const built = await buildTrain(ctx.cwd, base, baseTree, first, trainId);
  if (built.members.length !== first.length) return null; // a member contained or conflicting: the half would not be this tree
  const members = first.map((job) => job.id);
  ctx.emit({ type: 'probe_started', train: trainId, for: head.started.trainId, members, commit: built.train });
  const stop = new AbortController();
  const hold: Probe['hold'] = { writes: [] };
  const own: DrainContext = { ...ctx, abort: AbortSignal.any([ctx.abort, stop.signal]), keep: (write) => hold.writes.push(write) };
  const done = judgeTrain(own, { loaded, built, baseTree, ids: { batchId: head.batchId, trainId }, members: first }).then(
    (judgement) => judgement,
    () => null,
  );
  return { branch, forTrain: head.started.trainId, batchId: head.batchId, attempt: head.plan.attempt, trainId, built, jobs: first, members, stop, hold, done };
}

/** Whether the probe's assumption came true when `forTrain` settled to `next` (then its verdict is kept). */
export function probeHolds(probe: Pick<Probe, 'branch' | 'forTrain' | 'members'>, forTrain: string, next: Next): boolean {
  if (probe.forTrain !== forTrain) return false;
  if (probe.branch === 'passes') return next.next === 'publish';
  return next.next === 'first_half' && probedHalf(probe, forTrain, next.members);
}

/** Its assumption came true: the probe's verdict is waited for and recorded. */
export async function keepProbe(probe: Probe): Promise<void> {
  await probe.done;
  for (const write of probe.hold.writes.splice(0)) write();
}

/**
 * Anything else: the probe's gates are killed and nothing it found is kept; its row (VOID,
 * speculation_abandoned) keeps the runs it spent for `land stats`. `after`: the train whose outcome voided it.
 */
export async function dropProbe(ctx: DrainContext, probe: Probe, window: number): Promise<void> {
  probe.stop.abort();
  const judgement = await probe.done;
  probe.hold.writes.length = 0;
  if (!judgement || judgement.cached) return;
  const { built } = probe;
  const facts = {
    now: nowIso(),
    trainId: probe.trainId,
    batchId: probe.batchId,
    attempt: probe.attempt,
    members: probe.jobs,
    train: { kind: built.kind, base: built.base, commit: built.train, tree: built.tree },
    window,
  };
  const row = voidRow(facts, judgement, 'speculation_abandoned');
  await ctx.store.withQueueLock(() => ctx.store.appendMetric(row));
}

/** The window a probe's void row names (the drain's, unchanged by a probe). */
export const probeWindow = (ctx: DrainContext, max: number): number => currentWindow(ctx.store, max);

/** Whether the next train is the probed half (same members, same order). */
export const probedHalf = (probe: Pick<Probe, 'forTrain' | 'members'>, forTrain: string, members: readonly { id: string }[]): boolean =>
  probe.forTrain === forTrain && probe.members.length === members.length && probe.members.every((id, i) => members[i]?.id === id);
