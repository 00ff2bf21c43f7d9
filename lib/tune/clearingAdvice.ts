// `land tune`'s advice on optimistic clearing (policy flaky.clearing; pure): the recorded jobs
// replayed at the setting to use, with good trees failing at the recorded flake rate, once with
// clearing and once without, over CLEARING_SEEDS seeds of the flakes. Clearing is advised when it
// spends 2% fewer gate runs per landed job without ejecting more good jobs, or ejects a quarter of a
// good job fewer per replay without spending 2% more runs; in either case without a median time to
// land 10% longer (docs/tune.md "Optimistic clearing").
import { humanDuration as duration } from '../stats/statsText.js';
import { replayDrain, type ReplayFlaky, type ReplaySetting } from './replay.js';
import { percentile, type ReplayInput } from './replayInput.js';

/** Seeds of the flakes each way of the comparison is replayed with. */
export const CLEARING_SEEDS = 16;
/** How many fewer (or more) gate runs per landed job count as a difference. */
export const CLEARING_GAIN = 0.02;
/** How many fewer good jobs ejected per replay count as a difference. */
export const CLEARING_EJECTED = 0.25;
/** How much longer a median time to land clearing may cost and still be advised. */
export const CLEARING_SLACK = 0.1;

/** One way of the comparison, averaged over the seeds. */
export interface ClearingFigures {
  gateRunsPerLanded: number;
  /** The median time to land (seconds), averaged over the seeds. */
  p50: number;
  /** Good jobs failed by flakes, per replay. */
  ejected: number;
  /** Failed trains cleared by the train behind them, per replay. */
  cleared: number;
}

export interface ClearingAdvice {
  /** Turn flaky.clearing on (true), or leave or turn it off (false); null: nothing to recommend from. */
  on: boolean | null;
  /** Whether the policy has it on now. */
  now: boolean;
  /** The setting it was replayed at: the recommended one, else the current one. */
  setting: ReplaySetting;
  /** Each way's figures; null when not replayed (too little history, batch.parallel 1, no flake recorded). */
  off: ClearingFigures | null;
  with: ClearingFigures | null;
  reason: string;
}

/** Both ways replayed over the seeds, averaged. */
function figures(input: ReplayInput, setting: ReplaySetting, flaky: ReplayFlaky | null, clearing: boolean): ClearingFigures {
  const sum = { runs: 0, landed: 0, p50: 0, ejected: 0, cleared: 0 };
  for (let seed = 1; seed <= CLEARING_SEEDS; seed += 1) {
    const out = replayDrain(input.jobs, setting, input.gate.seconds, flaky, { rate: input.flakes.rate, clearing, seed });
    sum.runs += out.gateRuns;
    sum.landed += out.landed;
    sum.p50 += percentile(
      [...out.timesToLand].sort((a, b) => a - b),
      0.5,
    );
    sum.ejected += out.ejected;
    sum.cleared += out.cleared;
  }
  const round3 = (value: number) => Math.round(value * 1000) / 1000;
  return {
    gateRunsPerLanded: round3(sum.landed ? sum.runs / sum.landed : 0),
    p50: round3(sum.p50 / CLEARING_SEEDS),
    ejected: round3(sum.ejected / CLEARING_SEEDS),
    cleared: round3(sum.cleared / CLEARING_SEEDS),
  };
}

/** The rule of the file's comment. */
function clearingPays(on: ClearingFigures, off: ClearingFigures): boolean {
  const fewerRuns = on.gateRunsPerLanded <= off.gateRunsPerLanded * (1 - CLEARING_GAIN);
  const moreRuns = on.gateRunsPerLanded > off.gateRunsPerLanded * (1 + CLEARING_GAIN);
  const fewerEjected = off.ejected - on.ejected >= CLEARING_EJECTED;
  const moreEjected = on.ejected - off.ejected >= CLEARING_EJECTED;
  const slower = on.p50 > off.p50 * (1 + CLEARING_SLACK) + 1e-9;
  return !slower && ((fewerRuns && !moreEjected) || (fewerEjected && !moreRuns));
}

const per = (value: number) => value.toFixed(2);

/** The comparison in words: "1.10 gate runs per landed job instead of 1.25, 0.00 good jobs ejected per replay instead of 0.40, ...". */
function versus(a: ClearingFigures, b: ClearingFigures): string {
  return [
    `${per(a.gateRunsPerLanded)} gate runs per landed job instead of ${per(b.gateRunsPerLanded)}`,
    `${per(a.ejected)} good jobs ejected by flakes instead of ${per(b.ejected)}`,
    `time to land p50 ${duration(a.p50)} instead of ${duration(b.p50)}`,
  ].join(', ');
}

/**
 * Whether to turn flaky.clearing on at `setting`. `enough`: the history was enough to recommend a
 * setting (else nothing is advised either).
 */
export function adviseClearing(input: ReplayInput, setting: ReplaySetting, flaky: ReplayFlaky | null, opts: { now: boolean; enough: boolean }): ClearingAdvice {
  const none = { now: opts.now, setting, off: null, with: null };
  if (!opts.enough) return { ...none, on: null, reason: 'too little history to replay it' };
  if (setting.parallel < 2)
    return {
      ...none,
      on: false,
      reason: `it needs batch.parallel 2 or more (a failed train is cleared by the train built on it); the setting to use has ${setting.parallel}`,
    };
  if (input.flakes.rate <= 0)
    return { ...none, on: false, reason: 'no flake is recorded: no good tree failed, so clearing would clear nothing (a culprit is never cleared)' };
  const off = figures(input, setting, flaky, false);
  const on = figures(input, setting, flaky, true);
  const rate = `at the recorded flake rate ${(input.flakes.rate * 100).toFixed(1)}%, over ${CLEARING_SEEDS} seeded replays`;
  if (clearingPays(on, off)) return { ...none, off, with: on, on: true, reason: `turn it on: ${versus(on, off)} (${rate})` };
  return { ...none, off, with: on, on: false, reason: `leave it off: with it, ${versus(on, off)} (${rate})` };
}
