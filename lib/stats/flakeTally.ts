// Each gate's flake history, from the metrics rows: how often it ran, on how many trees it failed
// and then passed the same tree (a flake), on how many it failed twice or more and never passed (a
// failure a re-run confirmed), and the estimated flake rate the drain reads. `land stats` and `land
// flaky` show it. Pure: rows in (as lib/stats/history.ts reads them), figures out.
//
// The evidence is every fresh run of a gate (a cached verdict ran none), told per tree in time
// order: within one row's `runs` (a flaky re-run) and across rows (a FAIL row of tree T, then a
// later PASS row of T). A void row's runs count too: the gates ran, and what they said about the
// tree is still true. A run of a gate while the policy marked it advisory counts in its runs, but
// its failure is neither a flake nor a confirmed failure: it is counted apart (`uncounted`), and the
// rate is taken over the runs that counted, so a quarantine does not bend the estimate the drain
// reads once the mark is taken off. Its pass still clears the tree (a passed tree is no confirmed
// failure, and it ends an earlier counted failure of the tree as a flake).
import type { GateEvidence } from '../landing/plan/flakeEvidence.js';
import type { JobRecord } from '../store/index.js';
import type { HistoryTrain } from './history.js';
import { executionsOf, failedOnTree, passed, type GateExecution, type RunResult } from './trainRuns.js';

/** The most recent flaky trees kept per gate. */
export const RECENT_FLAKES = 10;

/** One fresh run of a gate on a tree, as evidence. */
export interface FlakeRun {
  train: string;
  /** The run's number within its train (a flaky re-run); null for a train that ran its gates once. */
  run: number | null;
  /** The log that holds its output; null when none was kept. */
  log: string | null;
  /** "exit 1", "timed out", "exit 0". */
  status: string | null;
  /**
   * When the run ended (ISO): the time of the row that holds it, for the row's last run (the row is
   * written as it ends); null for an earlier run of a train that ran more than once, and for a run
   * known only from a job record (their own time is not recorded).
   */
  at: string | null;
}

/** A tree on which a gate failed and a later fresh run passed. */
export interface FlakyTree {
  gate: string;
  /** The tree (the train's tree as its row names it); `train <id>` for a row that names none. */
  tree: string;
  /** The jobs of the train whose run passed. */
  jobs: string[];
  /** When the row that holds the run that passed was written (ISO); null when it is known only from a job record. */
  at: string | null;
  /** The fresh runs that failed on the tree before it passed, oldest first. */
  failed: FlakeRun[];
  /** The first fresh run that passed after them. */
  passed: FlakeRun;
}

export interface GateFlakes {
  gate: string;
  /** Fresh executions of this gate (cached verdicts ran none; each run of a train's `runs` counts; a VOID row's runs count too). */
  runs: number;
  /** Of `runs`, those that passed while the gate counted (not advisory): the clean runs the drain's flake estimate weighs (landing/plan/flakeEvidence.ts). */
  passed: number;
  /** Trees where this gate failed and a later fresh run of the same tree passed (within one row's runs, or across rows). */
  flakes: number;
  /** The fresh failed runs on those trees before they passed: the failures of good trees the drain's flake estimate weighs. */
  flakyRuns: number;
  /** Trees where this gate failed on at least two fresh runs and never passed (a failure confirmed by a re-run). */
  confirmed: number;
  /**
   * Its fresh failed runs in trains cleared by the train built on them (policy flaky.clearing, a
   * VOID row with reason `cleared`): most likely flakes, but no run of the same tree passed, so they
   * are in neither `flakes` nor the rates; `land tune` replays them as flakes.
   */
  cleared: number;
  /** flakes / (runs - advisoryRuns); 0 when no flake is recorded (a gate with no flake history is deterministic: its FAIL is final at once). */
  rate: number;
  /** Of `runs`, those while the policy marked the gate advisory (their failures are in `uncounted`, not in flakes or confirmed). */
  advisoryRuns: number;
  /** Fresh failures of the gate while the policy marked it advisory: recorded, counted in no verdict and in no flake figure. */
  uncounted: number;
  /** The most recent flaky trees, newest first (at most RECENT_FLAKES). */
  recent: FlakyTree[];
}

/** The figures of a gate that has not run (an advisory gate of the policy, say). */
export function noRuns(gate: string): GateFlakes {
  return { gate, runs: 0, passed: 0, flakes: 0, flakyRuns: 0, confirmed: 0, cleared: 0, rate: 0, advisoryRuns: 0, uncounted: 0, recent: [] };
}

/** What one gate's runs said about one tree it failed, in time order. */
interface TreeEvidence {
  failed: FlakeRun[];
  passed: FlakeRun | null;
  /** When the row holding the pass was written. */
  recorded: string | null;
  jobs: string[];
  /** Fresh failures in all (before and after a pass). */
  failures: number;
  /** Failed in a train cleared by the train behind (never a confirmed failure: its members landed). */
  cleared: boolean;
}

interface GateTally {
  runs: number;
  passed: number;
  advisoryRuns: number;
  uncounted: number;
  /** Fresh failures in cleared trains (GateFlakes.cleared). */
  cleared: number;
  /** The trees it failed at least once. */
  trees: Map<string, TreeEvidence>;
  /** The trees it passed at least once (a tree that ever passed has no confirmed failure). */
  passedTrees: Set<string>;
}

/** A row's runs, or a job record's flaky runs, with the tree they judged and the jobs they carried. */
interface Judged {
  tree: string;
  jobs: readonly string[];
  /** When the row was written (ISO), the time of its last run; null for a job record's runs. */
  at: string | null;
  executions: readonly GateExecution[];
  /** A train cleared by the train built on it (a VOID row, reason `cleared`). */
  cleared: boolean;
}

function tallyOf(byGate: Map<string, GateTally>, gate: string): GateTally {
  let tally = byGate.get(gate);
  if (!tally) {
    tally = { runs: 0, passed: 0, advisoryRuns: 0, uncounted: 0, cleared: 0, trees: new Map(), passedTrees: new Set() };
    byGate.set(gate, tally);
  }
  return tally;
}

function observe(tally: GateTally, judged: Judged, run: GateExecution, result: RunResult): void {
  tally.runs += 1;
  if (result.advisory) tally.advisoryRuns += 1;
  const last = run === judged.executions.at(-1);
  const seen = (): FlakeRun => ({ train: run.train, run: run.run, log: run.log, status: result.status, at: last ? judged.at : null });
  let evidence = tally.trees.get(judged.tree);
  if (passed(result)) {
    // Only a pass that follows a failure is evidence of a flake; any pass rules out a confirmed failure.
    tally.passedTrees.add(judged.tree);
    if (!result.advisory) tally.passed += 1;
    if (evidence && evidence.passed === null) {
      evidence.passed = seen();
      evidence.recorded = judged.at;
      evidence.jobs = [...judged.jobs];
    }
    return;
  }
  if (!failedOnTree(result)) return;
  if (result.advisory) {
    // Recorded, not counted: not evidence of a flake nor of a confirmed failure.
    tally.uncounted += 1;
    return;
  }
  if (judged.cleared) tally.cleared += 1;
  if (!evidence) {
    evidence = { failed: [], passed: null, recorded: null, jobs: [...judged.jobs], failures: 0, cleared: false };
    tally.trees.set(judged.tree, evidence);
  }
  if (judged.cleared) evidence.cleared = true;
  evidence.failures += 1;
  if (evidence.passed === null) evidence.failed.push(seen());
}

/** The runs of job records' flakes whose trains no row here names (another drainer's, in a queue kept in a remote). */
function recordFlakes(jobs: readonly Pick<JobRecord, 'flaky'>[], known: ReadonlySet<string>): Judged[] {
  const byTrain = new Map<string, Judged>();
  for (const { flaky } of jobs) {
    if (!flaky || byTrain.has(flaky.train) || [flaky.train, flaky.failed.train, flaky.passed.train].some((t) => known.has(t))) continue;
    const asRun = (run: typeof flaky.failed): GateExecution => ({
      train: run.train,
      run: run.run,
      log: run.log,
      results: run.results.map((r) => ({ name: r.name, status: r.status, outcome: r.outcome, seconds: r.seconds, advisory: r.advisory === true })),
    });
    const executions = [flaky.failed, flaky.passed].filter((run) => !run.cached).map(asRun);
    byTrain.set(flaky.train, { tree: flaky.tree, jobs: [], at: null, executions, cleared: false });
  }
  return [...byTrain.values()];
}

function judgedRows(rows: readonly HistoryTrain[]): { judged: Judged[]; known: Set<string> } {
  const known = new Set<string>();
  const judged = [...rows]
    .sort((a, b) => a.time - b.time)
    .map((row) => {
      const executions = executionsOf(row);
      known.add(row.train);
      for (const run of executions) known.add(run.train);
      const cleared = row.verdict === 'VOID' && row.reason === 'cleared';
      return { tree: row.tree ?? `train ${row.train}`, jobs: row.members, at: row.at ?? null, executions, cleared };
    });
  return { judged, known };
}

function figuresOf(gate: string, tally: GateTally): GateFlakes {
  const recent: FlakyTree[] = [];
  let confirmed = 0;
  for (const [tree, evidence] of tally.trees) {
    if (evidence.passed) {
      recent.push({
        gate,
        tree,
        jobs: evidence.jobs,
        at: evidence.recorded,
        failed: evidence.failed,
        passed: evidence.passed,
      });
    } else if (evidence.failures >= 2 && !evidence.cleared && !tally.passedTrees.has(tree)) {
      confirmed += 1;
    }
  }
  const flakes = recent.length;
  const flakyRuns = recent.reduce((sum, tree) => sum + tree.failed.length, 0);
  // Newest first; a flake known only from a job record (no time) last.
  recent.sort((a, b) => (b.at ?? '').localeCompare(a.at ?? ''));
  const counted = tally.runs - tally.advisoryRuns;
  const rate = flakes && counted > 0 ? flakes / counted : 0;
  const { runs, passed, advisoryRuns, uncounted, cleared } = tally;
  return { gate, runs, passed, flakes, flakyRuns, confirmed, cleared, rate, advisoryRuns, uncounted, recent: recent.slice(0, RECENT_FLAKES) };
}

/**
 * By gate: its fresh runs, flakes, confirmed failures, estimated flake rate and most recent flaky
 * trees, from the metrics rows (judged and void, any order) and, for flakes whose trains have no
 * row here, the job records' `flaky` (formats/gateRecords.ts flakyRecordSchema).
 */
export function flakeTally(rows: readonly HistoryTrain[], jobs: readonly Pick<JobRecord, 'flaky'>[] = []): Map<string, GateFlakes> {
  const byGate = new Map<string, GateTally>();
  const { judged, known } = judgedRows(rows);
  for (const one of [...judged, ...recordFlakes(jobs, known)]) {
    for (const run of one.executions) {
      for (const result of run.results) observe(tallyOf(byGate, result.name), one, run, result);
    }
  }
  const out = new Map<string, GateFlakes>();
  for (const gate of [...byGate.keys()].sort()) out.set(gate, figuresOf(gate, byGate.get(gate) as GateTally));
  return out;
}

/**
 * Each gate's clean runs and failed runs of good trees, as the drain's flake estimate weighs them
 * (landing/plan/flakeEvidence.ts): a failed run cleared by the train behind counts as one.
 */
export function gateEvidenceOf(tally: ReadonlyMap<string, GateFlakes>): Map<string, GateEvidence> {
  return new Map([...tally].map(([gate, figures]) => [gate, { passed: figures.passed, flakes: figures.flakyRuns + figures.cleared }]));
}
