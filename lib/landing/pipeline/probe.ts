// A probe (batch.parallel above 1): while a bisection train gates, the first half it would be split
// into is built on the same base and its gates run in a spare slot, assuming the train fails.
// A probe is no train of jobs: no record changes, no metrics row, no window move; only its
// verdict about the tree, and only when the train did fail and split into exactly that half. Then
// that half, built on the same base, has the same tree: its verdict comes from the cache at once.
// Otherwise the probe's gates are killed and nothing it found is kept.
import { buildTrain } from '../trains/buildTrain.js';
import { judgeTrain } from '../gates/judge.js';
import { splitFailed } from '../plan/trainPlan.js';
import { expectedRate } from '../plan/windowPlan.js';
import { recordedTally } from '../window.js';
import type { DrainContext } from '../trains/runTrains.js';
import type { Flight } from './flight.js';

export interface Probe {
  /** The train whose first half this is. */
  forTrain: string;
  /** The half's job ids, in merge order. */
  members: string[];
  stop: AbortController;
  /** The probe's verdict writes, kept only when its half is the next train. */
  hold: { writes: (() => void)[] };
  /** The judgement, ended (never rejected). */
  done: Promise<void>;
}

/** Whether a train is worth probing: a bisection train of two or more, about as likely to fail as to pass. */
export const probeWorth = (flight: Flight): boolean => flight.bisecting && flight.started.members.length >= 2;

/** Builds the first half of `head` on its base and starts its gates; null when the half does not build cleanly. */
export async function startProbe(ctx: DrainContext, head: Flight): Promise<Probe | null> {
  const { first } = splitFailed(head.started.members, expectedRate(recordedTally(ctx.store)));
  const { built: train } = head.started;
  const { loaded, baseTree } = head.plan.view;
  const trainId = ctx.store.claimTrainId(`${head.batchId}-probe`);
  const built = await buildTrain(ctx.cwd, train.base, baseTree, first, trainId);
  if (built.members.length !== first.length) return null; // a member contained or conflicting: the half would not be this tree
  const members = first.map((job) => job.id);
  ctx.emit({ type: 'probe_started', train: trainId, for: head.started.trainId, members, commit: built.train });
  const stop = new AbortController();
  const hold: Probe['hold'] = { writes: [] };
  const own: DrainContext = { ...ctx, abort: AbortSignal.any([ctx.abort, stop.signal]), keep: (write) => hold.writes.push(write) };
  const done = judgeTrain(own, { loaded, built, baseTree, ids: { batchId: head.batchId, trainId }, members: first }).then(
    () => undefined,
    () => undefined,
  );
  return { forTrain: head.started.trainId, members, stop, hold, done };
}

/** The train split into exactly this half: the probe's verdict is waited for and recorded. */
export async function keepProbe(probe: Probe): Promise<void> {
  await probe.done;
  for (const write of probe.hold.writes.splice(0)) write();
}

/** Anything else: the probe's gates are killed and nothing it found is kept. */
export async function dropProbe(probe: Probe): Promise<void> {
  probe.stop.abort();
  await probe.done;
  probe.hold.writes.length = 0;
}

/** Whether the next train is the probed half (same members, same order). */
export const probedHalf = (probe: Probe, forTrain: string, members: readonly { id: string }[]): boolean =>
  probe.forTrain === forTrain && probe.members.length === members.length && probe.members.every((id, i) => members[i]?.id === id);
