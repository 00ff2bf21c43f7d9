// The record changes (and metrics rows) a page's findings turn into, built in one place and
// applied by run.ts under one hold of the queue lock. Every change is journaled by applyChanges;
// its line's detail names the check, so `land why` tells it and a later run sees it is explained.
import { cancelChanges, landChanges, nowIso, requeueChanges, type JobChange, type JobPatch } from '../queue/index.js';
import type { JobRecord, LedgerObservation, ReconciledMetricsRow } from '../store/index.js';
import type { Finding } from './types.js';

export const RECONCILED = 'reconciled';

/** Only while the record is still what the checks saw: a drainer or a person may have moved it since. */
export function unchanged(seen: JobRecord): (current: JobRecord) => boolean {
  return (current) => current.state === seen.state && current.train === seen.train && current.batch?.train === seen.batch?.train && current.tip === seen.tip;
}

function detailOf(f: Finding, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { check: f.check, key: f.key, message: f.message, repair: f.repair.kind, ...extra };
}

/** Journals the finding and keeps the record as it is (the journal now explains it). */
export function noteChange(f: Finding, seen: JobRecord, extra: Record<string, unknown> = {}, patch?: JobPatch): JobChange {
  return { id: seen.id, from: [seen.state], lenient: true, when: unchanged(seen), event: RECONCILED, detail: detailOf(f, extra), ...(patch ? { patch } : {}) };
}

function asReconciled(change: JobChange, f: Finding, seen: JobRecord): JobChange {
  return { ...change, lenient: true, when: unchanged(seen), event: RECONCILED, detail: { ...change.detail, ...detailOf(f) } };
}

/** A stranded in_progress job, settled as a drainer's recovery would settle it. */
export function strandedChanges(f: Finding, seen: JobRecord, all: readonly JobRecord[], targetTip: string): JobChange[] {
  if (f.repair.kind === 'land' && seen.train) {
    const info = {
      via: seen.landedVia ?? 'recovered',
      base: seen.base ?? targetTip,
      tree: seen.tree ?? targetTip,
      train: seen.train,
      gateLog: seen.gateLog,
      gate: seen.gate,
      verdict: 'PASS' as const,
    };
    return landChanges([seen], info, RECONCILED).map((c) => asReconciled(c, f, seen));
  }
  if (f.repair.kind === 'cancel') return cancelChanges([seen]).map((c) => asReconciled(c, f, seen));
  const members = all.filter((other) => other.state === 'in_progress' && other.batch?.id === seen.batch?.id);
  const batch = seen.batch ? { id: seen.batch.id, members, attempt: seen.batch.attempt } : undefined;
  return requeueChanges([seen], { reason: 'recovered', toHead: true, batch }).map((c) => asReconciled(c, f, seen));
}

/** Out of the drain's reach until evidence or a person decides: the previous state stays in the journal. */
export function uncertainChange(f: Finding, seen: JobRecord): JobChange {
  return {
    id: seen.id,
    to: 'uncertain',
    from: [seen.state],
    lenient: true,
    when: unchanged(seen),
    event: 'uncertain',
    detail: detailOf(f, { previous: seen.state }),
    patch: { reason: f.check, error: { code: 'uncertain', message: f.message }, stopRequest: null },
  };
}

/** An uncertain job whose train is in the target and whose landing the journal or a metrics row names. */
export function decidedLandedChange(seen: JobRecord): JobChange {
  return {
    id: seen.id,
    to: 'landed',
    from: ['uncertain'],
    lenient: true,
    when: unchanged(seen),
    event: RECONCILED,
    detail: {
      check: 'uncertain',
      message: `its train ${seen.train?.slice(0, 12) ?? '?'} is in the target and its landing is on record: landed`,
      decided: 'landed',
    },
    patch: (current) => ({ reason: null, error: null, timestamps: { ...current.timestamps, landed: current.timestamps.landed ?? nowIso() } }),
  };
}

/** The ledger line found again for a batch stage, recorded on the job. */
export function ledgerFoundChange(f: Finding, seen: JobRecord, gate: string, line: LedgerObservation): JobChange {
  return noteChange(f, seen, { found: true }, { ledger: { ...(seen.ledger ?? {}), [gate]: line } });
}

/** The metrics row of a landing that has none, rebuilt from the records of its members (marked `reconciled`). */
export function reconciledRow(commit: string, members: readonly JobRecord[]): ReconciledMetricsRow {
  const first = members[0];
  // What the first member's record does not say is left out of the row, not written as null.
  const batch = first?.batch;
  return {
    at: nowIso(),
    train: batch?.train ?? `reconciled-${commit.slice(0, 12)}`,
    ...(batch ? { batch: batch.id, attempt: batch.attempt } : {}),
    kind: first?.landedVia === 'fast-forward' ? 'fast-forward' : 'merge',
    members: members.map((m) => m.id),
    branches: members.map((m) => m.branch),
    tips: members.map((m) => m.tip),
    ...(first?.base ? { base: first.base } : {}),
    commit,
    ...(first?.tree ? { tree: first.tree } : {}),
    gateSeconds: 0,
    cached: true,
    log: first?.gateLog ?? null,
    gate: first?.gate ?? { mode: 'cached', executed: [] },
    verdict: 'PASS',
    reason: null,
    landed: true,
    reconciled: true,
  };
}
