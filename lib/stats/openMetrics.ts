// `land stats --openmetrics`: the figures of a Stats in the OpenMetrics text format 1.0, for a
// metrics collector. Every family is named `land_...`, has `# HELP` and `# TYPE` (and `# UNIT`
// where its figure has one: the name then ends with the unit); counter samples end in `_total`;
// durations are summaries with `quantile` 0.5 and 0.9 (nearest rank) plus `_sum` and `_count`; the
// exposition ends with `# EOF`. Pure: Stats in, text out. The families: docs/stats.md.
import type { Distribution, Stats } from './figures.js';

type Labels = Record<string, string>;
type Sample = { suffix?: string; labels?: Labels; value: number };

interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'summary';
  help: string;
  unit?: string;
  samples: Sample[];
}

/** A label value or HELP text escaped as the format asks: backslash, double quote (labels only), newline. */
export function escapeLabelValue(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

function escapeHelp(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
}

function number(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

function labelText(labels: Labels | undefined): string {
  const entries = Object.entries(labels ?? {});
  return entries.length ? `{${entries.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',')}}` : '';
}

function render(family: Family): string[] {
  const out = [`# TYPE ${family.name} ${family.type}`];
  if (family.unit) out.push(`# UNIT ${family.name} ${family.unit}`);
  out.push(`# HELP ${family.name} ${escapeHelp(family.help)}`);
  for (const s of family.samples) out.push(`${family.name}${s.suffix ?? ''}${labelText(s.labels)} ${number(s.value)}`);
  return out;
}

const counter = (name: string, help: string, samples: Sample[]): Family => ({
  name,
  type: 'counter',
  help,
  samples: samples.map((s) => ({ ...s, suffix: '_total' })),
});

const gauge = (name: string, help: string, samples: Sample[], unit?: string): Family => ({ name, type: 'gauge', help, unit, samples });

const byLabel = (label: string, record: Record<string, number>): Sample[] =>
  Object.entries(record).map(([value, n]) => ({ labels: { [label]: value }, value: n }));

/** A summary's samples: the median and p90 (when there is any value), then _sum and _count. */
function summarySamples(d: Distribution, labels: Labels = {}): Sample[] {
  const quantiles: Sample[] = [];
  if (d.median !== null) quantiles.push({ labels: { ...labels, quantile: '0.5' }, value: d.median });
  if (d.p90 !== null) quantiles.push({ labels: { ...labels, quantile: '0.9' }, value: d.p90 });
  return [...quantiles, { suffix: '_sum', labels, value: d.sum }, { suffix: '_count', labels, value: d.count }];
}

const summary = (name: string, help: string, samples: Sample[]): Family => ({ name, type: 'summary', help, unit: 'seconds', samples });

function jobFamilies(stats: Stats): Family[] {
  const j = stats.jobs;
  const families = [
    counter('land_jobs', 'Jobs of the period that left the queue, by how they ended.', [
      { labels: { state: 'landed' }, value: j.landed },
      { labels: { state: 'failed' }, value: j.failed },
      { labels: { state: 'canceled' }, value: j.canceled },
    ]),
    gauge('land_queue_jobs', 'Jobs in the queue now: waiting (queued), riding a train (riding), set aside by land reconcile (uncertain).', [
      { labels: { state: 'queued' }, value: j.queued },
      { labels: { state: 'riding' }, value: j.riding },
      { labels: { state: 'uncertain' }, value: j.uncertain },
    ]),
    counter('land_job_failures', 'Failed jobs of the period by reason (gate, timeout, conflict, cas_lost, infra, ...).', byLabel('reason', j.failedByReason)),
    counter('land_gate_runs', 'Gate runs of the period: executions of the gate set for a train (a cached verdict costs none).', [
      { value: stats.gateRuns.total },
    ]),
  ];
  if (stats.gateRuns.perLandedJob !== null) {
    families.push(gauge('land_gate_runs_per_landed_job', 'Gate runs per landed job.', [{ value: stats.gateRuns.perLandedJob }]));
  }
  return families;
}

function trainFamilies(stats: Stats): Family[] {
  const t = stats.trains;
  return [
    counter('land_trains', 'Judged trains of the period by verdict.', [
      { labels: { verdict: 'PASS' }, value: t.pass },
      { labels: { verdict: 'FAIL' }, value: t.fail },
      { labels: { verdict: 'INFRA' }, value: t.infra },
    ]),
    counter('land_train_outcomes', 'Trains of the period by outcome (one train can have several): landed, bisected, cached, fast_path, flaky, abandoned.', [
      { labels: { outcome: 'landed' }, value: t.landed },
      { labels: { outcome: 'bisected' }, value: t.bisected },
      { labels: { outcome: 'cached' }, value: t.cached },
      { labels: { outcome: 'fast_path' }, value: t.fastPath },
      { labels: { outcome: 'flaky' }, value: t.flaky },
      { labels: { outcome: 'abandoned' }, value: t.abandoned },
    ]),
    counter('land_trains_not_landed', 'Judged trains of the period that did not land, by reason.', byLabel('reason', t.notLandedByReason)),
    counter(
      'land_trains_abandoned',
      'Trains of the period whose run was void, by reason: withdrawn, interrupted, speculation_abandoned, cleared.',
      byLabel('reason', t.abandonedByReason),
    ),
  ];
}

function timeFamilies(stats: Stats): Family[] {
  const t = stats.time;
  const families = [
    summary('land_time_to_land_seconds', 'Seconds from submission (or the last reopen) to landing, per landed job.', summarySamples(t.timeToLand)),
    summary('land_waiting_seconds', 'Seconds a landed job spent not gating: time to land minus its gating.', summarySamples(t.waiting)),
    summary('land_gating_seconds', 'Gate seconds of the trains a landed job rode since its submission.', summarySamples(t.gating)),
  ];
  if (t.gatingShare !== null) {
    families.push(gauge('land_gating_share_ratio', 'Gating seconds over time-to-land seconds, summed over landed jobs.', [{ value: t.gatingShare }], 'ratio'));
  }
  return families;
}

function culpritFamilies(stats: Stats): Family[] {
  const c = stats.culprits;
  const families = [
    counter('land_culprits', 'Jobs of the period failed alone by their own FAIL verdict.', [{ value: c.culprits }]),
    counter('land_decided_jobs', 'Jobs of the period a verdict decided: landed plus culprits.', [{ value: c.decided }]),
  ];
  if (c.rate !== null) families.push(gauge('land_culprit_ratio', 'Observed culprit rate: culprits over decided jobs.', [{ value: c.rate }], 'ratio'));
  return families;
}

function gateFamilies(stats: Stats): Family[] {
  const gates = stats.gates;
  const per = (pick: (g: (typeof gates)[number]) => number | null): Sample[] =>
    gates.flatMap((g) => {
      const value = pick(g);
      return value === null ? [] : [{ labels: { gate: g.name }, value }];
    });
  return [
    counter(
      'land_gate_executions',
      'Executions of each gate (one per gate run of a train that reached it).',
      per((g) => g.runs),
    ),
    counter(
      'land_gate_trains',
      'Trains that ran each gate at least once.',
      per((g) => g.trains),
    ),
    counter(
      'land_gate_flakes',
      'Trees where each gate failed and a later run of the same tree passed.',
      per((g) => g.flakes),
    ),
    counter(
      'land_gate_confirmed_failures',
      'Trees where each gate failed on two runs or more and never passed.',
      per((g) => g.confirmed),
    ),
    counter(
      'land_gate_uncounted_failures',
      'Failures of each gate while the policy marked it advisory: counted in no verdict and in no flake figure.',
      per((g) => g.uncounted),
    ),
    gauge(
      'land_gate_flake_rate',
      "Each gate's estimated flake rate: flakes over its counted runs (not those while advisory; 0: no flake recorded).",
      // Named as the issue and `land flaky` name it; a rate, so no unit suffix (and no UNIT line).
      per((g) => g.flakeRate),
    ),
    summary(
      'land_gate_duration_seconds',
      'Seconds per execution of each gate.',
      gates.flatMap((g) => summarySamples(g.seconds, { gate: g.name })),
    ),
  ];
}

function windowFamilies(stats: Stats): Family[] {
  const w = stats.window;
  const families: Family[] = [];
  if (w.now !== null) families.push(gauge('land_window_size', 'The batch window now (window.json).', [{ value: w.now }]));
  if (w.min !== null && w.max !== null) {
    families.push(gauge('land_window_size_min', 'The smallest window of the period.', [{ value: w.min }]));
    families.push(gauge('land_window_size_max', 'The largest window of the period.', [{ value: w.max }]));
  }
  families.push(
    counter('land_window_changes', 'Changes of the window made by people (set, reset) or by a clamp to batch.max.', [
      { labels: { event: 'set' }, value: w.sets },
      { labels: { event: 'reset' }, value: w.resets },
      { labels: { event: 'clamp' }, value: w.clamps },
    ]),
  );
  return families;
}

/** The OpenMetrics exposition of `stats`, ending with `# EOF` and a newline. */
export function toOpenMetrics(stats: Stats): string {
  const families = [
    ...jobFamilies(stats),
    ...trainFamilies(stats),
    ...timeFamilies(stats),
    ...culpritFamilies(stats),
    ...gateFamilies(stats),
    ...windowFamilies(stats),
  ];
  return `${[...families.flatMap(render), '# EOF'].join('\n')}\n`;
}
