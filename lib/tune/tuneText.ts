// `land tune` for a person (pure): what was replayed, a table of settings (the current one, each
// value of one setting changed at a time, the recommended one; every one with --all) and the
// recommendation with its reason.
import { table } from '../text/table.js';
import { humanDuration as duration } from '../stats/statsText.js';
import type { SettingFigures, TuneAdvice } from './recommend.js';
import type { ReplaySetting } from './replay.js';

const same = (a: ReplaySetting, b: ReplaySetting | null) => b !== null && a.max === b.max && a.waitSeconds === b.waitSeconds && a.parallel === b.parallel;

/** The current setting, the settings that change one value of it, and the recommended one. */
export function shownSettings(advice: TuneAdvice, all: boolean): SettingFigures[] {
  if (all) return advice.settings;
  const c = advice.current;
  const recommended = advice.recommendation.setting;
  return advice.settings.filter((f) => {
    const s = f.setting;
    const differing = Number(s.max !== c.max) + Number(s.waitSeconds !== c.waitSeconds) + Number(s.parallel !== c.parallel);
    return differing <= 1 || same(s, recommended);
  });
}

function row(f: SettingFigures, recommended: ReplaySetting | null): string[] {
  const marks = [f.current ? 'current' : '', same(f.setting, recommended) ? 'recommended' : ''].filter(Boolean).join(', ');
  return [
    String(f.setting.max),
    `${f.setting.waitSeconds}s`,
    String(f.setting.parallel),
    f.gateRunsPerLanded === null ? '-' : f.gateRunsPerLanded.toFixed(2),
    f.timeToLand ? duration(f.timeToLand.p50) : '-',
    f.timeToLand ? duration(f.timeToLand.p90) : '-',
    String(f.trains),
    String(f.abandoned),
    marks,
  ];
}

function inputLines(advice: TuneAdvice): string[] {
  const { input } = advice;
  const rate = input.culpritRate === null ? '' : ` (culprit rate ${(input.culpritRate * 100).toFixed(0)}%)`;
  const from = input.start === null ? '' : `, the first submitted ${input.start.slice(0, 16).replace('T', ' ')} UTC`;
  const gate =
    input.gate.source === 'recorded'
      ? `${duration(input.gate.seconds)} per gate run (the median of ${input.gate.trains} recorded train(s) that ran their gates)`
      : `${duration(input.gate.seconds)} per gate run (assumed: no recorded train ran its gates)`;
  const { flakes } = input;
  const flaky =
    flakes.rate > 0
      ? `a good tree's run fails ${(flakes.rate * 100).toFixed(1)}% of the time (${flakes.flakyRuns} flaky run(s) and ${flakes.cleared} cleared, against ${flakes.passed} clean run(s)); replayed so for the flaky.clearing advice`
      : 'none recorded';
  const lines = [
    `replayed ${input.jobs} decided job(s): ${input.landed} landed, ${input.culprits} culprit(s)${rate}${from}`,
    `gate time: ${gate}`,
    `flakes: ${flaky}`,
  ];
  const { canceled, otherFailures, undecided, noSubmitTime } = input.leftOut;
  const out = [
    canceled ? `${canceled} canceled` : '',
    otherFailures ? `${otherFailures} failed for another reason than a gate (conflict, refused, infrastructure...)` : '',
    undecided ? `${undecided} not decided yet` : '',
    noSubmitTime ? `${noSubmitTime} without a submit time` : '',
  ].filter(Boolean);
  if (out.length) lines.push(`left out: ${out.join(', ')}`);
  return lines;
}

export function tuneText(advice: TuneAdvice, all: boolean): string[] {
  if (!advice.settings.length) return [`${advice.recommendation.reason} (land tune replays the jobs the queue has decided; see docs/tune.md)`];
  const recommended = advice.recommendation.setting;
  const headers = ['batch.max', 'wait', 'parallel', 'gate runs/landed', 'p50 to land', 'p90 to land', 'trains', 'abandoned', ''];
  const rows = table(
    headers,
    shownSettings(advice, all).map((f) => row(f, recommended)),
  );
  const lines = [...inputLines(advice), '', ...rows.split('\n').map((line) => line.trimEnd())];
  if (!all) lines.push(`(${advice.settings.length} settings replayed; --all lists every one)`);
  lines.push('');
  if (recommended === null) lines.push(`no recommendation: ${advice.recommendation.reason}`);
  else if (advice.recommendation.keep) lines.push(`recommendation: keep it. ${capital(advice.recommendation.reason)}.`);
  else lines.push(`recommendation: ${advice.recommendation.reason}.`);
  if (advice.clearing.on !== null) lines.push(clearingLine(advice));
  return lines;
}

/** "flaky.clearing (now off): turn it on: ..." */
function clearingLine(advice: TuneAdvice): string {
  const { clearing } = advice;
  const now = `flaky.clearing (now ${clearing.now ? 'on' : 'off'})`;
  // "leave it off" said of a policy that has it on: turn it off.
  const reason = clearing.now && clearing.on === false ? clearing.reason.replace(/^leave it off/, 'turn it off') : clearing.reason;
  const plain = clearing.off === null && clearing.on === false ? `${clearing.now ? 'turn it off' : 'leave it off'}: ${reason}` : reason;
  return `${now}: ${plain}.`;
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
