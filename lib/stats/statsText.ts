// `land stats` for a person: a few aligned lines, durations as `1m 20s`. Pure: Stats in, text out.
import type { Distribution, GateFigures, Stats } from './figures.js';
import { sparkline } from './sparkline.js';

/** "0.04s", "4.2s", "12s", "1m 20s", "2h 05m", "3d 4h": a duration in seconds for a person. */
export function humanDuration(seconds: number): string {
  const s = Math.max(0, seconds);
  if (s < 1) return `${Math.round(s * 100) / 100}s`;
  if (s < 10) return `${Math.round(s * 10) / 10}s`;
  const whole = Math.round(s);
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, '0')}s`;
  if (whole < 86_400) return `${Math.floor(whole / 3600)}h ${String(Math.floor((whole % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(whole / 86_400)}d ${Math.floor((whole % 86_400) / 3600)}h`;
}

const percent = (rate: number | null) => (rate === null ? '-' : `${(Math.round(rate * 1000) / 10).toFixed(1)}%`);
const LABEL = 14;
const line = (label: string, text: string) => `${label.padEnd(LABEL)}${text}`;
const more = (text: string) => `${' '.repeat(LABEL)}${text}`;

function byReason(record: Record<string, number>): string {
  return Object.entries(record)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
}

function spread(d: Distribution): string {
  if (d.median === null || d.p90 === null) return '-';
  return `median ${humanDuration(d.median)}, p90 ${humanDuration(d.p90)}`;
}

function periodLine(stats: Stats): string {
  const until = stats.period.until.replace(/\.\d{3}Z$/, 'Z');
  return stats.period.since === null
    ? `land stats: everything recorded, until ${until}`
    : `land stats: since ${stats.period.since.replace(/\.\d{3}Z$/, 'Z')}, until ${until}`;
}

function jobLines(stats: Stats): string[] {
  const j = stats.jobs;
  const out = [line('jobs', `${j.landed} landed, ${j.failed} failed, ${j.canceled} canceled; now ${j.queued} queued, ${j.riding} riding`)];
  if (j.uncertain) out[0] += `, ${j.uncertain} uncertain`;
  if (j.failed) out.push(more(`failed by reason: ${byReason(j.failedByReason)}`));
  if (j.corrupt) out.push(more(`${j.corrupt} record(s) could not be read (land status --all names them)`));
  const g = stats.gateRuns;
  out.push(line('gate runs', `${g.total}${g.perLandedJob === null ? '' : ` (${g.perLandedJob.toFixed(2)} per landed job)`}`));
  return out;
}

function trainLines(stats: Stats): string[] {
  const t = stats.trains;
  const out = [
    line('trains', `${t.total}: ${t.pass} PASS, ${t.fail} FAIL${t.infra ? `, ${t.infra} INFRA` : ''}; ${t.landed} landed`),
    more(`${t.bisected} bisected, ${t.cached} cached, ${t.fastPath} fast path, ${t.flaky} flaky, ${t.abandoned} abandoned`),
  ];
  if (Object.keys(t.abandonedByReason).length) out.push(more(`abandoned by reason: ${byReason(t.abandonedByReason)}`));
  if (Object.keys(t.notLandedByReason).length) out.push(more(`not landed by reason: ${byReason(t.notLandedByReason)}`));
  if (t.unreadable) out.push(more(`${t.unreadable} metrics line(s) could not be read`));
  return out;
}

function timeLines(stats: Stats): string[] {
  const t = stats.time;
  if (t.timeToLand.count === 0) return [line('time to land', '- (no landed job)')];
  return [
    line('time to land', `${spread(t.timeToLand)} (${t.timeToLand.count} landed)`),
    line('  waiting', spread(t.waiting)),
    line('  gating', `${spread(t.gating)}; gating is ${percent(t.gatingShare)} of the time to land`),
  ];
}

/** `1 (rate 0.5); 2 confirmed; 3 advisory failures not counted`: the flake figures, and what an advisory gate did. */
function flakyCell(g: GateFigures): string {
  const confirmed = g.confirmed ? `; ${g.confirmed} confirmed` : '';
  const plural = g.uncounted === 1 ? 'failure' : 'failures';
  const advisory = g.uncounted ? `; ${g.uncounted} advisory ${plural} not counted` : g.advisory ? '; advisory, no failure' : '';
  return `${g.flakes} (rate ${g.flakeRate})${confirmed}${advisory}`;
}

function gateLines(gates: readonly GateFigures[]): string[] {
  if (gates.length === 0) return [line('gates', '- (no gate ran)')];
  const rows = gates.map((g) => [
    g.name,
    String(g.runs),
    g.seconds.median === null ? '-' : humanDuration(g.seconds.median),
    g.seconds.p90 === null ? '-' : humanDuration(g.seconds.p90),
    flakyCell(g),
  ]);
  const headers = ['gate', 'runs', 'median', 'p90', 'flaky'];
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] as string).length)));
  const render = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === 0 || i === cells.length - 1 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number)))
      .join('  ')
      .trimEnd();
  return [line('gates', render(headers)), ...rows.map((row) => more(render(row)))];
}

function windowLines(stats: Stats): string[] {
  const w = stats.window;
  const now = w.now === null ? 'never set' : `${w.now}${w.from === 'drainer' ? " (the drainer's, after its last train)" : ''}`;
  if (w.sizes.length === 0) return [line('window', `now ${now}; no change recorded`)];
  const steps = w.sizes.length - 1;
  const people = `${w.sets} set, ${w.resets} reset${w.clamps ? `, ${w.clamps} clamp` : ''}`;
  return [
    line('window', `now ${now}; between ${w.min} and ${w.max} over ${steps - w.sets - w.resets - w.clamps} train(s) (${people})`),
    more(sparkline(w.sizes)),
  ];
}

/** The text `land stats` prints (no trailing newline). */
export function statsText(stats: Stats): string {
  if (stats.empty) return noHistoryLine(stats);
  const c = stats.culprits;
  return [
    periodLine(stats),
    ...jobLines(stats),
    ...trainLines(stats),
    ...timeLines(stats),
    line('culprits', `${c.culprits} of ${c.decided} decided jobs (${percent(c.rate)})`),
    ...gateLines(stats.gates),
    ...windowLines(stats),
  ].join('\n');
}

/** The one line for a period without history. */
export function noHistoryLine(stats: Pick<Stats, 'period'>): string {
  const how = 'jobs submitted with `land submit` and drained by `land run` make it';
  return stats.period.since === null ? `no history yet: ${how}` : `no history since ${stats.period.since}: ${how}`;
}
