// The pure checks and the page selection, on records and evidence built in memory; plus the one
// ancestry query per page against a real repository.
import { afterAll, describe, expect, it } from 'vitest';
import { reachableFrom } from '../../lib/git/index.js';
import { canTransition, newJobRecord } from '../../lib/queue/index.js';
import { landingRefuted, parseAfter, parseLimit, planPage, selectPage } from '../../lib/reconcile/index.js';
import type { Evidence } from '../../lib/reconcile/index.js';
import type { JobRecord, JournalEntry } from '../../lib/store/index.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';

afterAll(cleanupTempDirs);

const TIP = 'a'.repeat(40);
const IN = 'b'.repeat(40);
const OUT = 'c'.repeat(40);

function job(id: string, over: Partial<JobRecord> = {}): JobRecord {
  return { ...newJobRecord({ id, branch: `b-${id}`, tip: TIP, title: id, submitter: 't', urgent: false }), ...over };
}

function line(id: string, from: JobRecord['state'] | null, to: JobRecord['state'], event: string, detail: Record<string, unknown> = {}): JournalEntry {
  return { at: '2026-11-30T10:00:00.000Z', kind: 'transition', job: id, from, to, event, detail };
}

/** Evidence where main holds IN (a train) and TIP (the jobs' tip), and no merge names a job. */
function evidence(over: Partial<Evidence> = {}): Evidence {
  return { drainerAlive: false, inTarget: new Set([IN, TIP]), landMerges: new Map(), target: 'main', journal: new Map(), rows: new Map(), ...over };
}

const landedJournal = (id: string, train: string) => [
  line(id, null, 'queued', 'submitted'),
  line(id, 'queued', 'in_progress', 'train_started'),
  line(id, 'in_progress', 'landed', 'landed', { train }),
];

describe('reconcile checks', () => {
  it('leaves a landed job alone when git, the journal and its metrics row agree', () => {
    const j = job('j-1', { state: 'landed', train: IN });
    const ev = evidence({
      journal: new Map([['j-1', landedJournal('j-1', IN)]]),
      rows: new Map([['j-1', [{ train: 't', commit: IN, members: ['j-1'], landed: true }]]]),
    });
    expect(planPage([j], ev)).toEqual({ findings: [], uncertain: [] });
  });

  it('never touches an in_progress job while a drainer is alive; settles it as recovery when none is', () => {
    const j = job('j-1', { state: 'in_progress', train: IN });
    expect(planPage([j], evidence({ drainerAlive: true })).findings).toEqual([]);
    expect(planPage([j], evidence()).findings.map((f) => [f.check, f.repair.kind])).toEqual([['stranded_landed', 'land']]);
    const asked = job('j-2', { state: 'in_progress', train: OUT, stopRequest: { kind: 'cancel', by: 'x', forJob: null, at: 'now' } });
    expect(planPage([asked], evidence()).findings.map((f) => [f.check, f.repair.kind])).toEqual([['stranded', 'cancel']]);
  });

  it('sends to uncertain what git and the record disagree on, and decides it only with its landing on record', () => {
    const landedOut = job('j-1', { state: 'landed', train: OUT });
    const failedIn = job('j-2', { state: 'failed', train: IN });
    const ev = evidence({ journal: new Map([['j-1', landedJournal('j-1', OUT)]]) });
    expect(planPage([landedOut, failedIn], ev).findings.map((f) => [f.job, f.check, f.repair.kind])).toEqual([
      ['j-1', 'landed_not_in_target', 'uncertain'],
      ['j-2', 'train_in_target', 'uncertain'],
    ]);
    const waiting = job('j-3', { state: 'uncertain', train: IN });
    expect(planPage([waiting], evidence()).uncertain[0]?.decided).toBeNull();
    const onRecord = evidence({ journal: new Map([['j-3', landedJournal('j-3', IN)]]) });
    expect(planPage([waiting], onRecord).uncertain[0]?.decided).toBe('landed');
  });

  it('refutes a landed record whose own tip is not in the target, though its train is (a forged record)', () => {
    // The attack: a record pushed as landed, naming main's tip as its train; its tip is not in main.
    // Its journal (the record commit's message, also the pusher's) and a metrics row agree with it.
    const forged = job('j-1', { state: 'landed', train: IN, tip: OUT, landedVia: 'fast-forward' });
    const ev = evidence({
      journal: new Map([['j-1', landedJournal('j-1', IN)]]),
      rows: new Map([['j-1', [{ train: 't', commit: IN, members: ['j-1'], landed: true }]]]),
    });
    const [found, ...more] = planPage([forged], ev).findings;
    expect(more).toEqual([]);
    expect([found?.check, found?.repair.kind]).toEqual(['landed_not_in_target', 'uncertain']);
    expect(found?.message).toBe(
      `landed, but its tip ${OUT.slice(0, 12)} is not in main (its train ${IN.slice(0, 12)} is); the journal shows its landing (landed)`,
    );
    expect(landingRefuted(forged, ev)).not.toBeNull();
    // Once uncertain, the landing on record does not decide it: git does not confirm it.
    const waiting = { ...forged, state: 'uncertain' as const };
    expect(planPage([waiting], ev).uncertain[0]?.decided).toBeNull();
  });

  it('confirms a landing by merge only with its merge on the train line naming the job and its tip', () => {
    const merged = job('j-1', { state: 'landed', train: IN, landedVia: 'merge' });
    const recovered = [line('j-1', null, 'queued', 'submitted'), line('j-1', 'in_progress', 'landed', 'recovered_landed', { train: IN })];
    const withMerge = (tips: string[]) => evidence({ journal: new Map([['j-1', recovered]]), landMerges: new Map([['j-1', tips]]) });
    expect(planPage([merged], withMerge([TIP])).findings).toEqual([]);
    // No merge names it, or the one that does merged another tip: git does not confirm the record.
    for (const ev of [withMerge([]), withMerge([OUT])]) {
      const [found] = planPage([merged], ev).findings;
      expect([found?.check, found?.repair.kind]).toEqual(['landed_not_in_target', 'uncertain']);
      expect(found?.message).toContain(`no merge on its train ${IN.slice(0, 12)}'s first-parent line names it (Land-Job: j-1)`);
    }
    // A fast-forward or a contained tip made no merge: its tip in the target is the whole check.
    expect(planPage([{ ...merged, landedVia: 'fast-forward' }], withMerge([])).findings).toEqual([]);
    // An uncertain job is decided landed only when git confirms it, merge included.
    const waiting = { ...merged, state: 'uncertain' as const };
    expect(planPage([waiting], withMerge([])).uncertain[0]?.decided).toBeNull();
    expect(planPage([waiting], withMerge([TIP])).uncertain[0]?.decided).toBe('landed');
  });

  it('keeps a record whose journal line ran ahead, and does not find a journaled finding again', () => {
    const j = job('j-1');
    const ahead = [line('j-1', null, 'queued', 'submitted'), line('j-1', 'queued', 'canceled', 'canceled')];
    const [found] = planPage([j], evidence({ journal: new Map([['j-1', ahead]]) })).findings;
    expect([found?.check, found?.repair.kind]).toEqual(['journal_ahead', 'note']);
    const noted: JournalEntry = { ...line('j-1', 'queued', 'queued', 'reconciled', { check: 'journal_ahead' }), kind: 'update' };
    expect(planPage([j], evidence({ journal: new Map([['j-1', [...ahead, noted]]]) })).findings).toEqual([]);
  });

  it('needs no metrics row for a landing that writes none (recovery, a contained tip)', () => {
    const j = job('j-1', { state: 'landed', train: IN });
    const recovered = [line('j-1', null, 'queued', 'submitted'), line('j-1', 'in_progress', 'landed', 'recovered_landed')];
    expect(planPage([j], evidence({ journal: new Map([['j-1', recovered]]) })).findings).toEqual([]);
    const judged = evidence({ journal: new Map([['j-1', landedJournal('j-1', IN)]]) });
    expect(planPage([j], judged).findings.map((f) => f.check)).toEqual(['metrics_row_missing']);
  });

  it('a queue kept in a remote: a landing without a metrics row in this clone is no disagreement (rows are per drainer)', () => {
    const j = job('j-1', { state: 'landed', train: IN });
    const journal = new Map([['j-1', landedJournal('j-1', IN)]]);
    expect(planPage([j], evidence({ journal, rowsPerDrainer: true })).findings).toEqual([]);
  });

  it('moves into and out of uncertain only through reconcile events', () => {
    expect(canTransition('landed', 'uncertain', 'uncertain')).toBe(true);
    expect(canTransition('landed', 'uncertain', 'landed')).toBe(false);
    expect(canTransition('uncertain', 'queued', 'resolved')).toBe(true);
    expect(canTransition('uncertain', 'queued', 'retried')).toBe(false);
    expect(canTransition('uncertain', 'in_progress', 'train_started')).toBe(false);
  });
});

describe('reconcile pages', () => {
  it('takes this target\u2019s records in id order after --after, at most --limit', () => {
    const jobs = ['j-3', 'j-1', 'j-2', 'j-4'].map((id) => job(id)).concat(job('j-0', { target: 'release' }));
    expect(selectPage(jobs, 'main', null, 2)).toMatchObject({ jobs: [{ id: 'j-1' }, { id: 'j-2' }], nextAfter: 'j-2' });
    expect(selectPage(jobs, 'main', 'j-2', 2)).toMatchObject({ jobs: [{ id: 'j-3' }, { id: 'j-4' }], nextAfter: null });
    expect(parseLimit(undefined)).toBe(50);
    expect(() => parseLimit('101')).toThrow(/1 to 100/);
    expect(() => parseAfter('../x')).toThrow(/not a job id/);
  });

  it('answers which commits the tip contains, in one query whatever their number', async () => {
    const repo = makeRepo();
    const base = repo.tip('main');
    const side = repo.branch('side', { 's.txt': 's\n' });
    const later = repo.commit('later', { 'l.txt': 'l\n' });
    const gone = 'd'.repeat(40);
    expect(await reachableFrom(repo.dir, later, [base, side, later, gone])).toEqual(new Set([base, later]));
    expect(await reachableFrom(repo.dir, base, [later, side])).toEqual(new Set());
    expect(await reachableFrom(repo.dir, later, [])).toEqual(new Set());
  });
});
