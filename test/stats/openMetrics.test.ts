// `land stats --openmetrics`: the exposition is checked by a real parser of the format (the
// Prometheus Python client's OpenMetrics parser, Debian's python3-prometheus-client, which is
// strict), and the values it reads back are the figures of `--json` (the same Stats).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { computeStats, type Stats } from '../../lib/stats/figures.js';
import { escapeLabelValue, toOpenMetrics } from '../../lib/stats/openMetrics.js';
import { history, ran, sampleHistory, train } from '../helpers/statsFixture.js';

const PYTHON = '/usr/bin/python3';
const REQUIRED = process.env.LAND_REQUIRE_OPENMETRICS_PARSER === '1';
const PARSE = `
import json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
out = []
for f in text_string_to_metric_families(sys.stdin.read()):
    out.append({"name": f.name, "type": f.type, "unit": f.unit, "samples": [[s.name, s.labels, s.value] for s in f.samples]})
print(json.dumps(out))
`;

function parserInstalled(): boolean {
  const probe = spawnSync(PYTHON, ['-c', 'import prometheus_client.openmetrics.parser'], { encoding: 'utf8' });
  return probe.status === 0;
}

interface ParsedFamily {
  name: string;
  type: string;
  unit: string;
  samples: [string, Record<string, string>, number][];
}

/** The families the parser reads from `text`; its error when it refuses it. */
function parse(text: string): ParsedFamily[] {
  const run = spawnSync(PYTHON, ['-c', PARSE], { input: text, encoding: 'utf8' });
  if (run.error) throw new Error(`${PYTHON}: ${run.error.message}${REQUIRED ? ' (LAND_REQUIRE_OPENMETRICS_PARSER=1)' : ''}`);
  if (/ModuleNotFoundError/.test(run.stderr)) throw new Error(`${PYTHON} has no prometheus_client: apt-get install python3-prometheus-client`);
  if (run.status !== 0) throw new Error(`the OpenMetrics parser refused the text: ${run.stderr.trim().split('\n').at(-1)}`);
  return JSON.parse(run.stdout) as ParsedFamily[];
}

/** `name{k=v,...}` -> value, labels sorted. */
function sampleMap(families: readonly ParsedFamily[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const family of families) {
    for (const [name, labels, value] of family.samples) {
      const keys = Object.keys(labels).sort();
      map.set(`${name}{${keys.map((k) => `${k}=${labels[k]}`).join(',')}}`, value);
    }
  }
  return map;
}

/** Every sample the exposition must carry for `stats`, read from its JSON figures. */
function expectedSamples(stats: Stats): Record<string, number> {
  const j = stats.jobs;
  const t = stats.trains;
  const expected: Record<string, number> = {
    ...{ 'land_jobs_total{state=landed}': j.landed, 'land_jobs_total{state=failed}': j.failed, 'land_jobs_total{state=canceled}': j.canceled },
    ...{ 'land_queue_jobs{state=queued}': j.queued, 'land_queue_jobs{state=riding}': j.riding, 'land_queue_jobs{state=uncertain}': j.uncertain },
    'land_gate_runs_total{}': stats.gateRuns.total,
    ...{ 'land_trains_total{verdict=PASS}': t.pass, 'land_trains_total{verdict=FAIL}': t.fail, 'land_trains_total{verdict=INFRA}': t.infra },
    ...{ 'land_train_outcomes_total{outcome=landed}': t.landed, 'land_train_outcomes_total{outcome=bisected}': t.bisected },
    ...{ 'land_train_outcomes_total{outcome=cached}': t.cached, 'land_train_outcomes_total{outcome=fast_path}': t.fastPath },
    ...{ 'land_train_outcomes_total{outcome=flaky}': t.flaky, 'land_train_outcomes_total{outcome=abandoned}': t.abandoned },
    ...{ 'land_culprits_total{}': stats.culprits.culprits, 'land_decided_jobs_total{}': stats.culprits.decided },
    ...{ 'land_window_changes_total{event=set}': stats.window.sets, 'land_window_changes_total{event=reset}': stats.window.resets },
    'land_window_changes_total{event=clamp}': stats.window.clamps,
  };
  for (const [reason, n] of Object.entries(j.failedByReason)) expected[`land_job_failures_total{reason=${reason}}`] = n;
  for (const [reason, n] of Object.entries(t.notLandedByReason)) expected[`land_trains_not_landed_total{reason=${reason}}`] = n;
  for (const [reason, n] of Object.entries(t.abandonedByReason)) expected[`land_trains_abandoned_total{reason=${reason}}`] = n;
  if (stats.gateRuns.perLandedJob !== null) expected['land_gate_runs_per_landed_job{}'] = stats.gateRuns.perLandedJob;
  if (stats.time.gatingShare !== null) expected['land_gating_share_ratio{}'] = stats.time.gatingShare;
  if (stats.culprits.rate !== null) expected['land_culprit_ratio{}'] = stats.culprits.rate;
  if (stats.window.now !== null) expected['land_window_size{}'] = stats.window.now;
  if (stats.window.min !== null) expected['land_window_size_min{}'] = stats.window.min;
  if (stats.window.max !== null) expected['land_window_size_max{}'] = stats.window.max;
  const summary = (name: string, d: Stats['time']['timeToLand'], labels = '') => {
    const sep = labels ? ',' : '';
    if (d.median !== null) expected[`${name}{${labels}${sep}quantile=0.5}`] = d.median;
    if (d.p90 !== null) expected[`${name}{${labels}${sep}quantile=0.9}`] = d.p90;
    expected[`${name}_sum{${labels}}`] = d.sum;
    expected[`${name}_count{${labels}}`] = d.count;
  };
  summary('land_time_to_land_seconds', stats.time.timeToLand);
  summary('land_waiting_seconds', stats.time.waiting);
  summary('land_gating_seconds', stats.time.gating);
  for (const g of stats.gates) {
    expected[`land_gate_executions_total{gate=${g.name}}`] = g.runs;
    expected[`land_gate_trains_total{gate=${g.name}}`] = g.trains;
    expected[`land_gate_flakes_total{gate=${g.name}}`] = g.flakes;
    expected[`land_gate_confirmed_failures_total{gate=${g.name}}`] = g.confirmed;
    expected[`land_gate_uncounted_failures_total{gate=${g.name}}`] = g.uncounted;
    expected[`land_gate_flake_rate{gate=${g.name}}`] = g.flakeRate;
    summary('land_gate_duration_seconds', g.seconds, `gate=${g.name}`);
  }
  return expected;
}

/** The sample history plus a gate whose name needs escaping in a label value. */
function hostileStats(): Stats {
  const h = sampleHistory();
  const name = 'say "hi"\\now\nnext';
  h.trains.push(
    train('t9', 950, [11], {
      landed: false,
      verdict: 'FAIL',
      reason: 'gate',
      gateSeconds: 3,
      gate: { mode: 'full', executed: [name], results: ran([name, 3, 'exit 1']) },
    }),
  );
  return computeStats(h);
}

describe('the OpenMetrics text', () => {
  it('escapes label values and ends with # EOF', () => {
    expect(escapeLabelValue('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
    const text = toOpenMetrics(hostileStats());
    expect(text.endsWith('\n# EOF\n')).toBe(true);
    expect(text).toContain('land_gate_executions_total{gate="say \\"hi\\"\\\\now\\nnext"} 1');
    expect(text).toContain('# TYPE land_jobs counter\n# HELP land_jobs ');
    expect(text).toContain('land_jobs_total{state="landed"} 7');
    expect(text).toContain('# TYPE land_time_to_land_seconds summary\n# UNIT land_time_to_land_seconds seconds\n');
    expect(text).toContain('land_time_to_land_seconds{quantile="0.9"} 300');
  });

  it('counts void trains by reason', () => {
    const stats = computeStats(history());
    stats.trains.abandonedByReason = { interrupted: 1, speculation_abandoned: 2 };
    const text = toOpenMetrics(stats);
    expect(text).toContain('# TYPE land_trains_abandoned counter');
    expect(text).toContain('land_trains_abandoned_total{reason="speculation_abandoned"} 2');
    expect(text).toContain('land_trains_abandoned_total{reason="interrupted"} 1');
  });
});

const available = parserInstalled() || REQUIRED;
const title = available
  ? `read back by prometheus_client's OpenMetrics parser (${PYTHON})`
  : `read back by prometheus_client's OpenMetrics parser (needs ${PYTHON} with the module: apt-get install python3-prometheus-client; LAND_REQUIRE_OPENMETRICS_PARSER=1 makes its absence a failure)`;

describe.skipIf(!available)(title, () => {
  it('parses, and every value read back is the --json figure', () => {
    const stats = hostileStats();
    const families = parse(toOpenMetrics(stats));
    for (const family of families) expect(family.name).toMatch(/^land_[a-z_]+$/);
    const units = Object.fromEntries(families.filter((f) => f.unit).map((f) => [f.name, f.unit]));
    expect(units).toMatchObject({ land_time_to_land_seconds: 'seconds', land_gate_duration_seconds: 'seconds', land_culprit_ratio: 'ratio' });
    const got = sampleMap(families);
    const expected = expectedSamples(stats);
    expect(Object.fromEntries(got)).toEqual(expected);
    // The figures are those of the history, not just equal to each other.
    expect(got.get('land_jobs_total{state=landed}')).toBe(7);
    expect(got.get('land_gate_duration_seconds{gate=test,quantile=0.9}')).toBe(28);
    expect(got.get('land_gate_executions_total{gate=say "hi"\\now\nnext}')).toBe(1);
  });

  it('parses an empty history (no quantiles, zero counts)', () => {
    const stats = computeStats(history());
    const got = sampleMap(parse(toOpenMetrics(stats)));
    expect(Object.fromEntries(got)).toEqual(expectedSamples(stats));
    expect(got.get('land_time_to_land_seconds_count{}')).toBe(0);
  });

  it('is strict: a counter sample without _total, or a text without # EOF, is refused', () => {
    const text = toOpenMetrics(computeStats(sampleHistory()));
    expect(() => parse(text.replace('land_gate_runs_total ', 'land_gate_runs '))).toThrow(/refused/);
    expect(() => parse(text.replace('# EOF\n', ''))).toThrow(/refused/);
  });
});
