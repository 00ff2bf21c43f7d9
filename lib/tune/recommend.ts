// `land tune`'s advice (pure): every setting of a small grid around the current policy replayed
// on the recorded history (./replay.ts), and the one to use with its reason. The rule
// (docs/tune.md "The recommendation"): among the settings whose median time to land is within
// 10% of the fastest, the fewest gate runs per landed job; the current setting is kept when it is
// one of those and within 5% of that many gate runs. The grid's gate is deterministic (flakes would
// add one seed's luck to every comparison); then optimistic clearing (policy flaky.clearing) is
// replayed on and off at the setting to use, with good trees failing at the recorded flake rate
// over several seeds, and advised on (docs/tune.md "Optimistic clearing").
import type { History } from '../stats/history.js';
import { humanDuration as duration } from '../stats/statsText.js';
import { replayDrain, type ReplayFlaky, type ReplayResult, type ReplaySetting } from './replay.js';
import { MIN_DECIDED, percentile, replayInput, type ReplayInput } from './replayInput.js';
import { adviseClearing, type ClearingAdvice } from './clearingAdvice.js';

export const GRID = { max: [1, 2, 4, 8, 16, 32], waitSeconds: [0, 30, 60, 300], parallel: [1, 2, 4] } as const;
/** How much slower than the fastest median time to land a recommended setting may be. */
export const TIME_SLACK = 0.1;
/** How many more gate runs per landed job than the best the current setting may spend and be kept. */
export const KEEP_SLACK = 0.05;

export interface SettingFigures {
  setting: ReplaySetting;
  current: boolean;
  gateRuns: number;
  /** Null when no replayed job lands. */
  gateRunsPerLanded: number | null;
  /** Seconds from submission to landing (nearest rank); null when no replayed job lands. */
  timeToLand: { p50: number; p90: number } | null;
  trains: number;
  abandoned: number;
  landed: number;
  failed: number;
}

export interface Recommendation {
  /** The setting to use; null when there is nothing to recommend (no or too little history). */
  setting: ReplaySetting | null;
  /** True when the recommended setting is the current one. */
  keep: boolean;
  reason: string;
}

export interface TuneAdvice {
  current: ReplaySetting;
  /**
   * `flaky`: the policy's flaky rule the replay re-runs a FAIL by (null: a FAIL final at once);
   * `clearing`: whether the policy has flaky.clearing on (the grid is replayed with it as it is).
   */
  input: Omit<ReplayInput, 'jobs' | 'ids' | 'start'> & {
    jobs: number;
    culpritRate: number | null;
    start: string | null;
    flaky: ReplayFlaky | null;
    clearing: boolean;
  };
  settings: SettingFigures[];
  recommendation: Recommendation;
  clearing: ClearingAdvice;
}

const uniqueSorted = (values: readonly number[]) => [...new Set(values)].sort((a, b) => a - b);
const same = (a: ReplaySetting, b: ReplaySetting) => a.max === b.max && a.waitSeconds === b.waitSeconds && a.parallel === b.parallel;

/** The grid: batch.max x waitSeconds x parallel, each with the current value added. */
export function candidateGrid(current: ReplaySetting): ReplaySetting[] {
  const out: ReplaySetting[] = [];
  for (const parallel of uniqueSorted([...GRID.parallel, current.parallel]))
    for (const max of uniqueSorted([...GRID.max, current.max]))
      for (const waitSeconds of uniqueSorted([...GRID.waitSeconds, current.waitSeconds])) out.push({ max, waitSeconds, parallel });
  return out;
}

export function figuresOf(setting: ReplaySetting, result: ReplayResult, current: boolean): SettingFigures {
  const times = result.timesToLand.map((t) => Math.round(t * 1000) / 1000).sort((a, b) => a - b);
  const { gateRuns, trains, abandoned, landed, failed } = result;
  return {
    setting,
    current,
    gateRuns,
    gateRunsPerLanded: landed ? gateRuns / landed : null,
    timeToLand: landed ? { p50: percentile(times, 0.5), p90: percentile(times, 0.9) } : null,
    trains,
    abandoned,
    landed,
    failed,
  };
}

/** "batch.max 4, waitSeconds 0, parallel 1" */
export function settingText(s: ReplaySetting): string {
  return `batch.max ${s.max}, waitSeconds ${s.waitSeconds}, parallel ${s.parallel}`;
}

/** The keys that differ from the current setting: "batch.max 4 (now 8)". */
function changeText(s: ReplaySetting, current: ReplaySetting): string {
  const parts: string[] = [];
  if (s.max !== current.max) parts.push(`batch.max ${s.max} (now ${current.max})`);
  if (s.waitSeconds !== current.waitSeconds) parts.push(`waitSeconds ${s.waitSeconds} (now ${current.waitSeconds})`);
  if (s.parallel !== current.parallel) parts.push(`parallel ${s.parallel} (now ${current.parallel})`);
  return parts.join(', ');
}

const runs = (f: SettingFigures) => (f.gateRunsPerLanded ?? 0).toFixed(2);

/** Fewest gate runs per landed job, then the shorter p90, then the fewer trains in flight, the smaller batch.max, the shorter wait. */
function better(a: SettingFigures, b: SettingFigures): number {
  const ga = a.gateRunsPerLanded ?? Number.POSITIVE_INFINITY;
  const gb = b.gateRunsPerLanded ?? Number.POSITIVE_INFINITY;
  if (Math.abs(ga - gb) > 1e-9) return ga - gb;
  return (
    (a.timeToLand?.p90 ?? 0) - (b.timeToLand?.p90 ?? 0) ||
    a.setting.parallel - b.setting.parallel ||
    a.setting.max - b.setting.max ||
    a.setting.waitSeconds - b.setting.waitSeconds
  );
}

/** The recommendation from replayed figures (see the file's comment). */
export function recommend(settings: readonly SettingFigures[], decided: number): Recommendation {
  if (decided === 0) return { setting: null, keep: false, reason: 'no history yet: no job has landed or failed as a culprit' };
  if (decided < MIN_DECIDED) {
    return {
      setting: null,
      keep: false,
      reason: `too little history: ${decided} decided job(s) (landed, or failed as culprits); tune recommends from ${MIN_DECIDED}`,
    };
  }
  const landing = settings.filter((f) => f.timeToLand !== null);
  if (!landing.length) return { setting: null, keep: false, reason: 'no replayed job lands: every decided job was a culprit' };
  const fastest = Math.min(...landing.map((f) => f.timeToLand?.p50 ?? 0));
  const eligible = landing.filter((f) => (f.timeToLand?.p50 ?? 0) <= fastest * (1 + TIME_SLACK) + 1e-9).sort(better);
  const best = eligible[0] as SettingFigures;
  const current = settings.find((f) => f.current);
  const p50 = (f: SettingFigures) => duration(f.timeToLand?.p50 ?? 0);
  const p90 = (f: SettingFigures) => duration(f.timeToLand?.p90 ?? 0);
  if (current && eligible.includes(current) && (current.gateRunsPerLanded ?? 0) <= (best.gateRunsPerLanded ?? 0) * (1 + KEEP_SLACK) + 1e-9) {
    return {
      setting: current.setting,
      keep: true,
      reason: `the current setting is already the best replayed: ${runs(current)} gate runs per landed job, time to land p50 ${p50(current)} (p90 ${p90(current)}); no other setting needs 5% fewer gate runs while landing within 10% of the fastest median`,
    };
  }
  const versus = current?.timeToLand
    ? ` instead of ${runs(current)}, time to land p50 ${p50(best)} instead of ${p50(current)} (p90 ${p90(best)} instead of ${p90(current)})`
    : `, time to land p50 ${p50(best)} (p90 ${p90(best)})`;
  const what = current ? changeText(best.setting, current.setting) : settingText(best.setting);
  return { setting: best.setting, keep: false, reason: `${what}: ${runs(best)} gate runs per landed job${versus}` };
}

/** Replays the history under every candidate setting (a FAIL re-run as `flaky` says) and recommends one, and whether to clear. */
export function tune(history: History, current: ReplaySetting, flaky: ReplayFlaky | null = null, clearing = false): TuneAdvice {
  const input = replayInput(history);
  const grid = candidateGrid(current);
  const settings = input.jobs.length
    ? grid.map((setting) => figuresOf(setting, replayDrain(input.jobs, setting, input.gate.seconds, flaky), same(setting, current)))
    : [];
  const decided = input.jobs.length;
  const { start, landed, culprits, leftOut, gate } = input;
  const recommendation: Recommendation =
    decided === 0 && history.since !== null
      ? {
          setting: null,
          keep: false,
          reason: `no history in this period: no job landed or failed as a culprit since ${new Date(history.since).toISOString()}`,
        }
      : recommend(settings, decided);
  return {
    current,
    input: {
      jobs: decided,
      start: start === null ? null : new Date(start).toISOString(),
      landed,
      culprits,
      culpritRate: decided ? culprits / decided : null,
      leftOut,
      gate,
      flakes: input.flakes,
      flaky,
      clearing,
    },
    settings,
    recommendation,
    clearing: adviseClearing(input, recommendation.setting ?? current, flaky, { now: clearing, enough: recommendation.setting !== null }),
  };
}
