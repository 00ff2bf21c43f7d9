// `land flaky`: each gate's flake figures (flakeTally.ts), the recent flaky trees with their
// evidence, and the gates the policy marks advisory. Pure: the tally and the policy's advisory
// gates in, the report (`land flaky --json`) and its text out.
import { printable } from '../text/safeText.js';
import { table } from '../text/table.js';
import type { FlakeRun, FlakyTree, GateFlakes } from './flakeTally.js';

/** The recent flaky trees `land flaky` lists, across gates. */
export const RECENT_TREES = 10;

export interface FlakyGateRow extends Omit<GateFlakes, 'recent'> {
  /** The policy in force marks this gate advisory: its failures are recorded, never counted. */
  advisory: boolean;
}

export interface FlakyReport {
  /** The period: from `since` (null: everything recorded) to when the history was read (ISO). */
  period: { since: string | null; until: string };
  /** Every gate that ran in the period, and every advisory gate of the policy, alphabetically. */
  gates: FlakyGateRow[];
  /** The most recent flaky trees of every gate, newest first (at most RECENT_TREES). */
  recent: FlakyTree[];
  /** The gates the policy in force marks advisory; null when the policy cannot be read (`policyProblem` says why). */
  advisory: string[] | null;
  policyProblem: string | null;
}

export function flakyReport(
  tally: ReadonlyMap<string, GateFlakes>,
  policy: { advisory: readonly string[] } | { problem: string },
  period: FlakyReport['period'],
): FlakyReport {
  const advisory = 'advisory' in policy ? [...policy.advisory] : null;
  const names = [...new Set([...tally.keys(), ...(advisory ?? [])])].sort();
  const gates = names.map((gate) => {
    const { recent: _recent, ...figures } = tally.get(gate) ?? { gate, runs: 0, flakes: 0, confirmed: 0, rate: 0, uncounted: 0, recent: [] };
    return { ...figures, advisory: advisory?.includes(gate) ?? false };
  });
  const recent = [...tally.values()]
    .flatMap((g) => g.recent)
    .sort((a, b) => (b.at ?? '').localeCompare(a.at ?? ''))
    .slice(0, RECENT_TREES);
  return { period, gates, recent, advisory, policyProblem: 'problem' in policy ? policy.problem : null };
}

const short = (id: string) => (/^[0-9a-f]{40,64}$/.test(id) ? `${id.slice(0, 12)}…` : id);
const rate = (r: number) => String(Math.round(r * 10_000) / 10_000);

function runText(verdict: 'FAIL' | 'PASS', run: FlakeRun): string {
  const status = verdict === 'FAIL' && run.status ? `${run.status}, ` : '';
  const log = run.log ? `log ${run.log}` : 'no log kept';
  return `${verdict} in train ${run.train} (${status}${log})`;
}

/** One flaky tree as a sentence: which runs failed, which passed, in which trains, with their logs. */
export function flakyTreeLine(tree: FlakyTree): string {
  const jobs = tree.jobs.length ? ` (job ${tree.jobs.join(', ')})` : '';
  const runs = [...tree.failed.map((run) => runText('FAIL', run)), runText('PASS', tree.passed)];
  return printable(`tree ${short(tree.tree)} gate ${tree.gate}${jobs}: ${runs.join(', ')}: flake`);
}

/** The text `land flaky` prints (no trailing newline). */
export function flakyText(report: FlakyReport): string {
  const until = report.period.until.replace(/\.\d{3}Z$/, 'Z');
  const head = report.period.since === null ? `land flaky: everything recorded, until ${until}` : `land flaky: since ${report.period.since}, until ${until}`;
  const lines = [head];
  if (report.gates.length === 0) {
    lines.push("no gate has run yet: the flake figures come from the gates' runs (`land run`)");
  } else {
    const rows = report.gates.map((g) => [
      g.gate,
      String(g.runs),
      String(g.flakes),
      String(g.confirmed),
      rate(g.rate),
      String(g.uncounted),
      g.advisory ? 'advisory' : '',
    ]);
    lines.push(table(['gate', 'runs', 'flakes', 'confirmed', 'rate', 'not counted', ''], rows).replace(/ +$/gm, ''));
    if (report.recent.length) lines.push('recent flaky trees (newest first):', ...report.recent.map((tree) => `  ${flakyTreeLine(tree)}`));
    else lines.push('no flaky tree recorded: no gate failed on a tree that a later run of it passed');
  }
  if (report.advisory === null) lines.push(`advisory gates: unknown (${report.policyProblem ?? 'the policy cannot be read'})`);
  else if (report.advisory.length)
    lines.push(`advisory gates (policy): ${report.advisory.join(', ')}: they run and their failures are recorded, never counted`);
  else lines.push('advisory gates (policy): none');
  return lines.join('\n');
}
