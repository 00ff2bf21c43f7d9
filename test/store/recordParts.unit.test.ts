// The job record's declared fields: every shape the drain writes today and every shape an earlier
// version wrote still parses (no existing state folder turns corrupt), a field of the wrong type is
// reported by file name, and fields a later version adds survive a read.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newJobRecord } from '../../lib/queue/index.js';
import {
  localStore,
  fastPathRecordSchema,
  gateTelemetrySchema,
  jobRecordSchema,
  ledgerObservationsSchema,
  type GateTelemetry,
  type JobRecord,
  type MetricsRow,
} from '../../lib/store/index.js';
import { parseTrainRows } from '../../lib/story/trainRow.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const job = (over: Partial<JobRecord> = {}): JobRecord => ({
  ...newJobRecord({ id: 'j-20260101-0001', branch: 'x', tip: A, title: 'x', submitter: 't', urgent: false }),
  ...over,
});

const LEDGER_LINE = {
  version: 1,
  job: 'gen',
  track: 'gen',
  start: '2026-01-01T00:00:00.000Z',
  end: '2026-01-01T00:00:02.000Z',
  wallSeconds: 2,
  cpuSeconds: 1.5,
  cpuHours: 0.0004,
  peakRssBytes: null,
  exitCode: 0,
  signal: null,
  status: 0,
  interruptedBy: null,
  host: 'h',
  gitHead: null,
  cwd: '/w',
  measureDir: '/w',
  counts: { timings: {}, timingSeconds: null, compiled: null, candidates: null, received: null, completionTokens: null, scored: null, best: null },
};

/** Each variant of the gate telemetry the drain writes now (lib/landing/gates/judgeCheap.ts and judgeGates.ts). */
const WRITTEN: GateTelemetry[] = [
  { mode: 'cached', source: 'proof', proofSource: 'local', planBase: A, executed: [], gatesHash: 'h' },
  { mode: 'cached', source: 'cache', cachedFrom: 'b-1-1', cachedVerdict: 'FAIL', cachedLog: '/s/logs/b-1-1.log', planBase: A, executed: [], gatesHash: 'h' },
  {
    mode: 'selective',
    planBase: A,
    selected: ['test'],
    executed: ['test'],
    cached: [{ gate: 'docs', from: B }],
    missReasons: { test: 'no paths: always runs' },
    fallbackReason: null,
    gatesHash: 'h',
    refreshed: ['lockfile'],
    results: [{ name: 'test', outcome: 'exited', status: 'exit 1', seconds: 1.2 }],
  },
  { mode: 'full', executed: [], refresh: { kind: 'failed', entry: 'lockfile', status: 'exit 2' }, gatesHash: 'h' },
  { mode: 'full', executed: [], gatesHash: 'h' },
];

/** Gate telemetry as the first versions wrote it (before proofs and selective gates). */
const LEGACY: unknown[] = [
  { mode: 'cached', cachedFrom: 'b-1-1', executed: [], gatesHash: 'h' },
  { mode: 'none', executed: [], gatesHash: 'h' },
  { mode: 'full', executed: ['test'], results: [{ name: 'test', outcome: 'timeout', status: 'timed out', seconds: 60 }], gatesHash: 'h' },
];

describe('the job record schema', () => {
  it('parses a record written before jobs named a target, a fast path, a regate or ledger lines', () => {
    const old: Record<string, unknown> = { ...job(), timestamps: { queued: 'x' } };
    delete old.target;
    const parsed = jobRecordSchema.parse(old);
    expect(parsed.target).toBeUndefined();
    expect(parsed.fastPath).toBeUndefined();
    expect(parsed.regate).toBeUndefined();
    expect(parsed.ledger).toBeUndefined();
  });

  it('parses every gate telemetry written now and by earlier versions', () => {
    for (const gate of [...WRITTEN, ...LEGACY]) expect(jobRecordSchema.parse(job({ gate: gate as GateTelemetry })).gate).toEqual(gate);
  });

  it('parses both fast-path decisions and both ledger observations', () => {
    const decisions = [
      { alone: true, source: 'cache', proofSource: null, tree: A, base: B, checkedAt: 'x' },
      { alone: false, refusal: 'target_moved', tree: A, base: B, checkedAt: 'x' },
      { alone: false, refusal: 'conflict', tree: null, base: B, checkedAt: 'x' },
      { alone: false, refusal: 'cached_fail', cachedFrom: 'b-1-1', cachedLog: null, tree: A, base: B, checkedAt: 'x' },
    ];
    for (const fastPath of decisions) expect(fastPathRecordSchema.parse(fastPath)).toEqual(fastPath);
    const ledger = { gen: LEDGER_LINE, other: { missing: true, ledgerDir: null }, broken: { missing: true, ledgerDir: '/l', error: 'EACCES' } };
    expect(ledgerObservationsSchema.parse(ledger)).toEqual(ledger);
    expect(jobRecordSchema.parse(job({ regate: true, target: 'main', timestamps: { queued: 'x', reopened: 'y' } })).timestamps.reopened).toBe('y');
  });

  it('keeps fields it does not know, at the top and inside the nested parts', () => {
    const later = {
      ...job({ gate: { ...(WRITTEN[2] as GateTelemetry), newer: 1 } }),
      fastPath: { alone: false, refusal: 'no_pass', tree: A, base: B, checkedAt: 'x', newer: 2 },
      newer: 3,
    };
    const parsed = jobRecordSchema.parse(later);
    expect(parsed).toEqual(later);
  });

  it('refuses a record whose declared fields have the wrong type', () => {
    const wrong: unknown[] = [
      { ...job(), fastPath: { alone: true, refusal: 'no_pass', tree: A, base: B, checkedAt: 'x' } }, // alone without a source
      { ...job(), fastPath: { alone: false, refusal: 'bored', tree: A, base: B, checkedAt: 'x' } },
      { ...job(), gate: { mode: 'guessed', executed: [] } },
      { ...job(), gate: { mode: 'full', executed: [], results: [{ name: 't', outcome: 'exited', status: 'exit 0' }] } }, // no seconds
      { ...job(), regate: 'yes' },
      { ...job(), target: 7 },
      { ...job(), ledger: { gen: { job: 'gen' } } },
    ];
    for (const value of wrong) expect(jobRecordSchema.safeParse(value).success, JSON.stringify(value)).toBe(false);
    expect(gateTelemetrySchema.safeParse(null).success).toBe(false);
  });

  it('reports such a record as corrupt by file name, and reads the others', () => {
    const s = localStore(join(tempDir(), 'land'));
    s.ensure();
    s.writeJob(job({ fastPath: { alone: true, source: 'proof', proofSource: 'train', tree: A, base: B, checkedAt: 'x' } }));
    writeFileSync(join(s.paths.jobsDir, 'j-20260101-0002.json'), JSON.stringify({ ...job(), id: 'j-20260101-0002', regate: 'yes' }));
    const listing = s.listJobs();
    expect(listing.jobs.map((j) => j.id)).toEqual(['j-20260101-0001']);
    expect(listing.corrupt).toEqual([expect.objectContaining({ file: 'j-20260101-0002.json', problem: expect.stringContaining('regate') })]);
  });
});

describe('metrics rows', () => {
  it('a row with each gate telemetry the drain writes reads as a train row', () => {
    const rows: MetricsRow[] = WRITTEN.map((gate, i) => ({
      at: 'x',
      train: `b-1-${i + 1}`,
      batch: 'b-1',
      attempt: 1,
      kind: 'merge',
      members: ['j-1'],
      branches: ['x'],
      tips: [A],
      base: A,
      commit: B,
      tree: A,
      gateSeconds: 1,
      cached: false,
      log: null,
      gate,
      verdict: 'FAIL',
      reason: 'gate',
      windowBefore: 2,
      windowAfter: 1,
      landed: false,
    }));
    const parsed = parseTrainRows(rows);
    expect(parsed.unreadable).toBe(0);
    expect(parsed.rows.map((row) => row.gate?.mode)).toEqual(WRITTEN.map((gate) => gate.mode));
  });
});
