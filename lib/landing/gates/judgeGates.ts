// The gates run in the train's prepared checkout (./judgeWorktree.ts): the per-gate selection
// first (a path-scoped gate whose files did not change keeps its ancestor's PASS, ./selection.ts),
// then the gates it keeps, on the gated tree (trusted paths restored, ./trusted.ts). What they
// decide is recorded (./judgeRecord.ts); batch stages that ran leave their ledger lines here.
import { findLedgerLine, resolveLedgerDir } from '../../ledger/index.js';
import { nowIso } from '../../queue/index.js';
import type { LedgerObservation, LedgerObservations, RanGateTelemetry } from '../../store/index.js';
import type { TrainEnv } from './gateEnv.js';
import { advisoryFailures } from './advisory.js';
import { runGatesOnSlot } from './slotGates.js';
import { recordOutcome, recordPasses } from './judgeRecord.js';
import { judgementOf, type Judgement, type RefreshedTrain } from './judgement.js';
import type { Judging } from './judging.js';
import { selectGates, type SelectionPlan } from './selection.js';

/** The ledger line a batch stage left, as an observation: an unreadable ledger is reported, not thrown. */
function observeLedgerLine(ledgerDir: string | null, job: string, since: string): LedgerObservation {
  if (!ledgerDir) return { missing: true, ledgerDir: null };
  try {
    return findLedgerLine(ledgerDir, job, since) ?? { missing: true, ledgerDir };
  } catch (error) {
    return { missing: true, ledgerDir, error: (error as Error).message };
  }
}

/** The ledger lines of the batch stages among the gates that ran; null when none ran. */
function ledgerOf(j: Judging, plan: SelectionPlan, executed: readonly string[], dir: string, since: string): LedgerObservations | null {
  const ledger: LedgerObservations = {};
  for (const gate of plan.gates.filter((g) => g.batch && executed.includes(g.name))) {
    ledger[gate.name] = observeLedgerLine(resolveLedgerDir(process.env, j.loaded.policy.ledger, dir), gate.batch?.job ?? '', since);
  }
  return Object.keys(ledger).length ? ledger : null;
}

/** The gates the selection keeps run on the (refreshed) train; what they decide is recorded. */
export async function judgeCheckout(j: Judging, dir: string, trainEnv: TrainEnv, refreshed: RefreshedTrain): Promise<Judgement> {
  const { ctx, built, hash, log, logPath } = j;
  const train = refreshed ? refreshed.commit : built.train;
  // The gates run on the gated tree (trusted paths restored): verdict and proof are about it.
  const tree = j.gated.tree;
  const plan = await selectGates({ cwd: ctx.cwd, store: ctx.store, gates: j.loaded.policy.gates, base: built.base, train, gated: tree });
  const telemetry: RanGateTelemetry = { ...plan.telemetry, gatesHash: hash, ...(refreshed ? { refreshed: refreshed.entries } : {}) };
  if (!plan.gates.length) {
    const stillCounting = plan.telemetry.cached.map((c) => c.gate);
    recordPasses(j, train, stillCounting);
    log.line(`== verdict PASS without a gate: every gate's last PASS on an ancestor still counts`);
    return judgementOf({ verdict: 'PASS', failure: null }, { cached: true, log: logPath, telemetry, refreshed });
  }
  ctx.counters.gateRuns += 1;
  const startedAt = nowIso();
  // On the drainer, or on the slot of an ssh executor the drain gives the train (./slotGates.ts).
  const run = await runGatesOnSlot(j, plan.gates, dir, { ...trainEnv, LAND_TIP: train });
  const executed = run.results.map((r) => r.name);
  telemetry.executed = executed;
  telemetry.results = run.results;
  const ledger = ledgerOf(j, plan, executed, dir, startedAt);
  // An advisory gate that failed keeps no PASS for the next train's selection.
  const notPassed = new Set(advisoryFailures(run.results).map((r) => r.name));
  recordOutcome(j, { train, tree, run, selection: plan.telemetry, ran: executed.filter((name) => !notPassed.has(name)) });
  const { results: _results, seconds, ...outcome } = run;
  return judgementOf(outcome, { cached: false, seconds, log: logPath, telemetry, ledger, refreshed });
}
