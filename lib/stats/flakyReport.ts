// `land flaky`: each gate's flake figures (flakeTally.ts), the recent flaky trees with their
// evidence, and the gates the policy marks advisory. Pure: the tally and the policy's advisory
// gates in, the report (`land flaky --json`) and its text out.
import { printable } from '../text/safeText.js';
import { table } from '../text/table.js';
import { flakeRateOf as assumedRate, NO_EVIDENCE, type GateEvidence } from '../landing/plan/flakeEvidence.js';
import { noRuns, type FlakeRun, type FlakyTree, type GateFlakes } from './flakeTally.js';

/** The recent flaky trees `land flaky` lists, across gates. */
export const RECENT_TREES = 10;

export interface FlakyGateRow extends Omit<GateFlakes, 'recent'> {
  /** The policy in force marks this gate advisory: its failures are recorded, never counted. */
  advisory: boolean;
  /**
   * The flake rate the drain assumes when this gate fails (flaky.rule "evidence"): its expectation
   * given the clean runs and flakes of the whole history (landing/plan/flakeEvidence.ts), not only the period's.
   */
  assumed: number;
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
  evidence: ReadonlyMap<string, GateEvidence>,
): FlakyReport {
  const advisory = 'advisory' in policy ? [...policy.advisory] : null;
  const names = [...new Set([...tally.keys(), ...(advisory ?? [])])].sort();
  const gates = names.map((gate) => {
    const { recent: _recent, ...figures } = tally.get(gate) ?? noRuns(gate);
    return { ...figures, advisory: advisory?.includes(gate) ?? false, assumed: assumedRate(evidence.get(gate) ?? NO_EVIDENCE) };
  });
  const recent = [...tally.values()]
    .flatMap((g) => g.recent)
    .sort((a, b) => (b.at ?? '').localeCompare(a.at ?? ''))
    .slice(0, RECENT_TREES);
  return { period, gates, recent, advisory, policyProblem: 'problem' in policy ? policy.problem : null };
}

const short = (id: string) => (/^[0-9a-f]{40,64}$/.test(id) ? `${id.slice(0, 12)}…` : id);
const rate = (r: number) => String(Math.round(r * 10_000) / 10_000);

const logText = (log: string | null) => (log ? `log ${log}` : 'no log kept');

/** `FAIL in run 1 of train X (exit 1; log L)`: the run's number when its train ran more than once, its log when the runs' logs differ. */
function runText(verdict: 'FAIL' | 'PASS', run: FlakeRun, withLog: boolean): string {
  const where = run.run === null ? `train ${run.train}` : `run ${run.run} of train ${run.train}`;
  const notes = [...(verdict === 'FAIL' && run.status ? [run.status] : []), ...(withLog ? [logText(run.log)] : [])];
  return `${verdict} in ${where}${notes.length ? ` (${notes.join('; ')})` : ''}`;
}

/**
 * One flaky tree as a sentence: which runs failed, which passed, in which runs of which trains, and
 * their logs (once, when every run wrote to the same log: the runs of one train share it).
 */
export function flakyTreeLine(tree: FlakyTree): string {
  const jobs = tree.jobs.length ? ` (job ${tree.jobs.join(', ')})` : '';
  const all = [...tree.failed, tree.passed];
  const oneLog = new Set(all.map((run) => run.log)).size === 1;
  const runs = [...tree.failed.map((run) => runText('FAIL', run, !oneLog)), runText('PASS', tree.passed, !oneLog)];
  const log = oneLog ? `; ${logText(tree.passed.log)}` : '';
  return printable(`tree ${short(tree.tree)} gate ${tree.gate}${jobs}: ${runs.join(', ')}: flake${log}`);
}

/** An ISO time to the second, as the period is printed. */
const toSecond = (iso: string) => iso.replace(/\.\d{3}Z$/, 'Z');

/** The text `land flaky` prints (no trailing newline). */
export function flakyText(report: FlakyReport): string {
  const until = toSecond(report.period.until);
  const head =
    report.period.since === null ? `land flaky: everything recorded, until ${until}` : `land flaky: since ${toSecond(report.period.since)}, until ${until}`;
  const lines = [head];
  if (report.gates.length === 0) {
    lines.push(
      report.period.since === null
        ? "no gate has run yet: the flake figures come from the gates' runs (`land run`)"
        : 'no gate ran in this period (a longer --since, or none, shows more)',
    );
  } else {
    const rows = report.gates.map((g) => [
      g.gate,
      String(g.runs),
      String(g.flakes),
      String(g.confirmed),
      String(g.cleared),
      rate(g.rate),
      rate(g.assumed),
      String(g.uncounted),
      g.advisory ? 'advisory' : '',
    ]);
    lines.push(table(['gate', 'runs', 'flakes', 'confirmed', 'cleared', 'rate', 'assumed', 'not counted', ''], rows).replace(/ +$/gm, ''));
    if (report.recent.length) lines.push('recent flaky trees (newest first):', ...report.recent.map((tree) => `  ${flakyTreeLine(tree)}`));
    else lines.push('no flaky tree recorded: no gate failed on a tree that a later run of it passed');
    const cleared = report.gates.reduce((sum, g) => sum + g.cleared, 0);
    if (cleared)
      lines.push(
        `cleared: ${cleared} failed run(s) in trains the train behind passed (flaky.clearing): not in flakes nor rate (no run of the same tree passed), weighed as flakes in assumed`,
      );
  }
  if (report.advisory === null) lines.push(`advisory gates: unknown (${report.policyProblem ?? 'the policy cannot be read'})`);
  else if (report.advisory.length)
    lines.push(`advisory gates (policy): ${report.advisory.join(', ')}: they run and their failures are recorded, never counted`);
  else lines.push('advisory gates (policy): none');
  return lines.join('\n');
}
