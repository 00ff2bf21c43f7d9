// The checks of `land reconcile`, pure: a job record and the evidence about it (git ancestry, its
// journal lines, the metrics rows naming it) → what disagrees and what to do about it. The table
// these functions implement is docs/reconcile.md's; keep the two in step.
import { isMissingLedgerLine, type JobRecord, type JournalEntry } from '../store/index.js';
import { alreadyNoted, landingLine, lastStateLine, ROWLESS_LANDINGS } from './evidence.js';
import type { CheckKind, Evidence, Finding, GitEvidence, PagePlan, Repair, UncertainJob } from './types.js';

const short = (commit: string | null): string => (commit ? commit.slice(0, 12) : '(none)');

function finding(job: JobRecord, check: CheckKind, message: string, repair: Repair, key = ''): Finding {
  return { job: job.id, check, message, repair, key };
}

function contains(ev: GitEvidence, commit: string | null | undefined): commit is string {
  return typeof commit === 'string' && ev.inTarget.has(commit);
}

/** in_progress with no drainer alive: settled against git exactly as a drainer's recovery would. */
function checkStranded(job: JobRecord, ev: Evidence): Finding[] {
  if (ev.drainerAlive) return [];
  if (contains(ev, job.train)) {
    return [finding(job, 'stranded_landed', `in_progress with no drainer running, and its train ${short(job.train)} is in ${ev.target}`, { kind: 'land' })];
  }
  const cancel = job.stopRequest?.kind === 'cancel';
  const message = `in_progress with no drainer running, and its train is not in ${ev.target}${cancel ? ' (a cancel was asked)' : ''}`;
  return [finding(job, 'stranded', message, { kind: cancel ? 'cancel' : 'requeue' })];
}

/**
 * The record's state against the journal's last line about it. A line the record did not follow
 * (a process stopped between the two) keeps the record: the change never completed. A record
 * that changed without a journal line is uncertain, unless git confirms it (a landing in the target).
 */
function checkJournal(job: JobRecord, journal: readonly JournalEntry[], gitConfirms: boolean): Finding[] {
  const last = lastStateLine(journal);
  if (last?.to === job.state) return [];
  if (!last) return [finding(job, 'unjournaled', `no journal line names this job; its record (${job.state}) is kept`, { kind: 'note' }, 'none')];
  const said = `${last.event}: ${last.from ?? 'new'} -> ${last.to}`;
  if (last.kind === 'transition' && last.from === job.state) {
    const message = `the journal's last line (${said}) never reached the record (a process stopped between the two); the record (${job.state}) is kept`;
    return [finding(job, 'journal_ahead', message, { kind: 'note' }, last.at)];
  }
  const message = `the record says ${job.state} but the journal's last line says ${last.to} (${said}): the record changed without a journal line${gitConfirms ? '; git confirms the record' : ''}`;
  return [finding(job, 'unjournaled', message, gitConfirms ? { kind: 'note' } : { kind: 'uncertain' }, last.at)];
}

/** A landing by a judged train has its metrics row; recovery's, reconcile's and a contained tip's do not. */
function checkMetricsRow(job: JobRecord, ev: Evidence, journal: readonly JournalEntry[]): Finding[] {
  const landing = landingLine(journal);
  if (!landing || ROWLESS_LANDINGS.has(landing.event) || !job.train || ev.rowsPerDrainer) return [];
  if ((ev.rows.get(job.id) ?? []).some((row) => row.landed && row.commit === job.train)) return [];
  if (alreadyNoted(journal, 'metrics_row_missing', job.train)) return [];
  const message = `landed in train ${short(job.train)} (in ${ev.target}) but no metrics row names it as landed`;
  return [finding(job, 'metrics_row_missing', message, { kind: 'metrics_row' }, job.train)];
}

/** Each batch stage of a landed job left a ledger line (the batch wrapper fails a stage that leaves none). */
function checkLedger(job: JobRecord, journal: readonly JournalEntry[]): Finding[] {
  const out: Finding[] = [];
  for (const [gate, seen] of Object.entries(job.ledger ?? {})) {
    if (!isMissingLedgerLine(seen) || alreadyNoted(journal, 'ledger_line_missing', gate)) continue;
    const where = seen.ledgerDir ? ` in ${seen.ledgerDir}` : ' (no ledger dir was known)';
    out.push(
      finding(
        job,
        'ledger_line_missing',
        `landed, but its batch stage ${gate} left no ledger line${where}`,
        { kind: 'ledger', gate, ledgerDir: seen.ledgerDir },
        gate,
      ),
    );
  }
  return out;
}

/** A person decided this job (`land reconcile --resolve`) and nothing moved it since: reconcile does not overrule them. */
function decidedByPerson(job: JobRecord, journal: readonly JournalEntry[]): boolean {
  const last = lastStateLine(journal);
  return last?.event === 'resolved' && last.to === job.state;
}

/**
 * What git says against the claim that the job landed, or null when git confirms it: its train
 * commit and its own tip are in the target (a train, fast-forward or merge, holds its members'
 * tips), and a landing by merge has its merge on the train's first-parent line, naming the job
 * (`Land-Job: <id>`) with the job's tip as a parent. A record is only a claim: in a remote queue,
 * anyone who can push may write one, naming any train.
 */
export function landingRefuted(job: JobRecord, ev: GitEvidence & { target: string }): string | null {
  if (!job.train) return 'the record names no train commit';
  if (!contains(ev, job.train)) return `its train ${short(job.train)} is not in ${ev.target}`;
  if (!contains(ev, job.tip)) return `its tip ${short(job.tip)} is not in ${ev.target} (its train ${short(job.train)} is)`;
  if (job.landedVia === 'merge' && !(ev.landMerges.get(job.id) ?? []).includes(job.tip)) {
    return `no merge on its train ${short(job.train)}'s first-parent line names it (Land-Job: ${job.id}) with its tip ${short(job.tip)} as a parent`;
  }
  return null;
}

function checkLanded(job: JobRecord, ev: Evidence, journal: readonly JournalEntry[]): Finding[] {
  const refuted = landingRefuted(job, ev);
  if (refuted !== null && !decidedByPerson(job, journal)) {
    const landing = landingLine(journal);
    const journalSays = landing ? `the journal shows its landing (${landing.event})` : 'the journal shows no landing';
    return [finding(job, 'landed_not_in_target', `landed, but ${refuted}; ${journalSays}`, { kind: 'uncertain' }, job.train ?? 'none')];
  }
  return [...checkJournal(job, journal, true), ...checkMetricsRow(job, ev, journal), ...checkLedger(job, journal)];
}

/** queued, failed or canceled: nothing of the job may be in the target. */
function checkNotLanded(job: JobRecord, ev: Evidence, journal: readonly JournalEntry[]): Finding[] {
  if (decidedByPerson(job, journal)) return [];
  if (contains(ev, job.train)) {
    return [
      finding(job, 'train_in_target', `the record says ${job.state} but its train ${short(job.train)} is in ${ev.target}`, { kind: 'uncertain' }, job.train),
    ];
  }
  const landedRows = (ev.rows.get(job.id) ?? []).filter((row) => row.landed && row.commit);
  const inTarget = landedRows.find((row) => contains(ev, row.commit));
  if (inTarget) {
    const message = `the record says ${job.state} but the metrics row of train ${inTarget.train ?? '?'} says it landed as ${short(inTarget.commit)}, which is in ${ev.target}`;
    return [finding(job, 'train_in_target', message, { kind: 'uncertain' }, inTarget.commit ?? '')];
  }
  const stale = landedRows
    .filter((row) => !alreadyNoted(journal, 'metrics_row_not_in_target', row.commit ?? ''))
    .map((row) => {
      const message = `the metrics row of train ${row.train ?? '?'} says it landed as ${short(row.commit)}, but that commit is not in ${ev.target} and the record says ${job.state}; the record is kept`;
      return finding(job, 'metrics_row_not_in_target', message, { kind: 'note' }, row.commit ?? '');
    });
  return [...stale, ...checkJournal(job, journal, false)];
}

/**
 * An uncertain job is decided only by evidence: git confirms its landing (its train and its tip in
 * the target, its merge naming it) and a landing on record names that train.
 */
function checkUncertain(job: JobRecord, ev: Evidence, journal: readonly JournalEntry[]): UncertainJob {
  const rowSays = (ev.rows.get(job.id) ?? []).some((row) => row.landed && row.commit === job.train);
  const journalSays = landingLine(journal)?.detail.train === job.train;
  const decided = landingRefuted(job, ev) === null && (rowSays || journalSays) ? 'landed' : null;
  return { job: job.id, reason: job.reason, message: job.error?.message ?? null, decided };
}

export function checkJob(job: JobRecord, ev: Evidence): Finding[] {
  const journal = ev.journal.get(job.id) ?? [];
  switch (job.state) {
    case 'in_progress':
      return checkStranded(job, ev);
    case 'landed':
      return checkLanded(job, ev, journal);
    case 'queued':
    case 'failed':
    case 'canceled':
      return checkNotLanded(job, ev, journal);
    case 'uncertain':
      return [];
    default: {
      const never: never = job.state;
      throw new Error(`unknown state ${String(never)}`);
    }
  }
}

/** Every finding of a page, and its uncertain jobs (with those evidence now decides). */
export function planPage(jobs: readonly JobRecord[], ev: Evidence): PagePlan {
  const findings = jobs.flatMap((job) => checkJob(job, ev));
  const uncertain = jobs.filter((job) => job.state === 'uncertain').map((job) => checkUncertain(job, ev, ev.journal.get(job.id) ?? []));
  return { findings, uncertain };
}
