// `land reconcile`: the effects around the pure checks. One listing of the records, one journal
// pass and one pass over this clone's own metrics rows (never published ones: they may be forged) for the page, one ancestry query (three git processes) for every
// commit the page names and one walk for the merges naming its merge landings; then the repairs under one hold of the queue lock, each journaled. It
// never runs a gate and never moves the target.
import { LandError } from '../errors.js';
import { refTip } from '../git/index.js';
import { loadPolicy } from '../config/index.js';
import { findLedgerLine, resolveLedgerDir } from '../ledger/index.js';
import { applyChanges, type JobChange } from '../queue/index.js';
import type { QueueStore, JobRecord, ReconciledMetricsRow } from '../store/index.js';
import { decidedLandedChange, ledgerFoundChange, noteChange, reconciledRow, strandedChanges, uncertainChange } from './changes.js';
import { planPage } from './checks.js';
import { rowsByJob } from './evidence.js';
import { gitEvidence } from './gitEvidence.js';
import { selectPage } from './page.js';
import type { Evidence, Finding, PagePlan, ReconcileResult } from './types.js';

export interface ReconcileOptions {
  cwd: string;
  store: QueueStore;
  target: string;
  after: string | null;
  limit: number;
  /** Only report: change nothing. */
  check: boolean;
}

async function targetTipOrThrow(cwd: string, store: QueueStore, target: string): Promise<string> {
  const tip = await refTip(cwd, store.targetRef(target));
  if (tip === null) throw new LandError('config', `target branch "${target}" does not exist`, { hint: 'name another with --target' });
  return tip;
}

export async function gatherEvidence(opts: ReconcileOptions, jobs: readonly JobRecord[], tip: string): Promise<Evidence> {
  const ids = jobs.map((job) => job.id);
  const journal = opts.store.readJournalOfJobs(ids);
  const rows = rowsByJob(opts.store.readOwnMetricsMatching(ids).rows, ids);
  const git = await gitEvidence(opts.cwd, tip, jobs, rows.values());
  return { ...git, drainerAlive: opts.store.drainerAlive(), target: opts.target, journal, rows, rowsPerDrainer: opts.store.rowsPerDrainer };
}

/** The batch stage's ledger line, looked up again where the drain looked (or where the policy says). */
async function findLineAgain(opts: ReconcileOptions, job: JobRecord, gate: string, ledgerDir: string | null) {
  try {
    const { policy } = await loadPolicy(opts.cwd, opts.target);
    const name = policy.gates.find((g) => g.name === gate)?.batch?.job;
    const dir = ledgerDir ?? resolveLedgerDir(process.env, policy.ledger, opts.cwd);
    if (!name || !dir) return null;
    return findLedgerLine(dir, name, job.timestamps.started ?? job.timestamps.queued);
  } catch {
    return null; // an unreadable policy or ledger: the disagreement is noted, not repaired
  }
}

/** Whether a metrics row already names the job as landed at `commit`. */
function hasLandedRow(store: QueueStore, id: string, commit: string): boolean {
  return (
    rowsByJob(store.readOwnMetricsMatching([id]).rows, [id])
      .get(id)
      ?.some((row) => row.landed && row.commit === commit) === true
  );
}

/**
 * A drainer appends a train's metrics row after its members' records, under the queue lock; the
 * page was read without it. A row found missing is looked for again under the lock before it counts.
 */
async function confirmMissingRows(store: QueueStore, plan: PagePlan): Promise<PagePlan> {
  const missing = plan.findings.filter((f) => f.check === 'metrics_row_missing');
  if (!missing.length) return plan;
  const stale = await store.withQueueLock(() => new Set(missing.filter((f) => hasLandedRow(store, f.job, f.key))));
  return { ...plan, findings: plan.findings.filter((f) => !stale.has(f)) };
}

interface Work {
  changes: JobChange[];
  rows: ReconciledMetricsRow[];
  /** What was done about each finding, by its index. */
  done: string[];
  /** The members of each train whose metrics row is missing, and the trains given a row. */
  missingRow: Map<string, JobRecord[]>;
  rowsFor: Set<string>;
}

/** The changes for one finding (and the metrics row it needs); returns what will be done. */
async function workFor(opts: ReconcileOptions, f: Finding, seen: JobRecord, all: readonly JobRecord[], tip: string, work: Work): Promise<string> {
  switch (f.repair.kind) {
    case 'land':
    case 'requeue':
    case 'cancel':
      work.changes.push(...strandedChanges(f, seen, all, tip));
      return f.repair.kind === 'land'
        ? 'landed (its train is in the target)'
        : f.repair.kind === 'cancel'
          ? 'canceled (as asked)'
          : 'requeued at the head of the queue';
    case 'uncertain':
      work.changes.push(uncertainChange(f, seen));
      return 'moved to uncertain: decide it with land reconcile --resolve';
    case 'note':
      work.changes.push(noteChange(f, seen));
      return 'record kept; journaled';
    case 'metrics_row': {
      work.changes.push(noteChange(f, seen));
      if (seen.train && !work.rowsFor.has(seen.train)) {
        // One row per train, naming the members that lack one (the others have theirs).
        work.rowsFor.add(seen.train);
        work.rows.push(reconciledRow(seen.train, work.missingRow.get(seen.train) ?? [seen]));
      }
      return 'metrics row appended (marked reconciled)';
    }
    case 'ledger': {
      const line = await findLineAgain(opts, seen, f.repair.gate, f.repair.ledgerDir);
      work.changes.push(line ? ledgerFoundChange(f, seen, f.repair.gate, line) : noteChange(f, seen, { found: false }));
      return line ? 'ledger line found and recorded' : 'still no ledger line; journaled';
    }
    default: {
      const never: never = f.repair;
      throw new Error(`unknown repair ${JSON.stringify(never)}`);
    }
  }
}

export async function reconcile(opts: ReconcileOptions): Promise<ReconcileResult> {
  const { jobs } = opts.store.listJobs();
  const page = selectPage(jobs, opts.target, opts.after, opts.limit);
  const tip = await targetTipOrThrow(opts.cwd, opts.store, opts.target);
  const ev = await gatherEvidence(opts, page.jobs, tip);
  const plan = await confirmMissingRows(opts.store, planPage(page.jobs, ev));
  const base = { scanned: page.jobs.length, disagreements: plan.findings.length, nextAfter: page.nextAfter, check: opts.check };
  if (opts.check) {
    const found = plan.findings.map((f) => ({ ...f, repaired: false, done: 'not repaired (--check)' }));
    return { ...base, repaired: 0, found, decided: [], uncertain: plan.uncertain };
  }
  const byId = new Map(page.jobs.map((job) => [job.id, job]));
  const work: Work = { changes: [], rows: [], done: [], missingRow: new Map(), rowsFor: new Set() };
  for (const f of plan.findings) {
    const seen = byId.get(f.job);
    if (f.repair.kind === 'metrics_row' && seen?.train) work.missingRow.set(seen.train, [...(work.missingRow.get(seen.train) ?? []), seen]);
  }
  for (const f of plan.findings) work.done.push(await workFor(opts, f, byId.get(f.job) as JobRecord, jobs, tip, work));
  for (const u of plan.uncertain) if (u.decided) work.changes.push(decidedLandedChange(byId.get(u.job) as JobRecord));
  const stranded = new Set(plan.findings.filter((f) => f.check === 'stranded' || f.check === 'stranded_landed').map((f) => f.job));
  // A drainer that started meanwhile owns its in_progress jobs: their repairs are skipped under the lock.
  const guarded = work.changes.map((c) => (stranded.has(c.id) ? { ...c, when: (cur: JobRecord) => !opts.store.drainerAlive() && (c.when?.(cur) ?? true) } : c));
  const applied = work.changes.length
    ? await applyChanges(opts.store, guarded, () => {
        for (const row of work.rows) if (!hasLandedRow(opts.store, String(row.members[0]), String(row.commit))) opts.store.appendMetric(row);
      })
    : [];
  const touched = new Set(applied.map((job) => job.id));
  const found = plan.findings.map((f, i) => ({
    ...f,
    repaired: touched.has(f.job),
    done: touched.has(f.job) ? (work.done[i] ?? '') : 'skipped: the record changed meanwhile',
  }));
  const decided = plan.uncertain.filter((u) => u.decided && touched.has(u.job)).map((u) => u.job);
  const moved = found
    .filter((f) => f.repaired && f.repair.kind === 'uncertain')
    .map((f) => ({ job: f.job, reason: f.check, message: f.message, decided: null }));
  const uncertain = [...plan.uncertain.filter((u) => !decided.includes(u.job)), ...moved];
  return { ...base, repaired: found.filter((f) => f.repaired).length + decided.length, found, decided, uncertain };
}
