// A synthetic History for the stats tests: no git, no store. Times are seconds after T0.
import type { AbandonedTrain, History, HistoryTrain } from '../../lib/stats/history.js';
import type { JobRecord, WindowHistoryEntry } from '../../lib/store/index.js';
import { newJobRecord } from '../../lib/queue/index.js';

export const T0 = Date.parse('2026-11-30T10:00:00Z');
export const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const hex = (n: number) => n.toString(16).padStart(40, '0');

type Ending = { state: 'landed' | 'failed' | 'canceled'; at: number; reason?: string } | { state: 'queued' | 'in_progress' | 'uncertain' };

export function job(n: number, queued: number, ending: Ending, extra: Partial<JobRecord> = {}): JobRecord {
  const id = `j-${n}`;
  const base = newJobRecord({ id, branch: `b${n}`, tip: hex(n), title: `b${n}`, submitter: 'ada@example.com', urgent: false, target: 'main' });
  const timestamps: JobRecord['timestamps'] = { queued: at(queued) };
  let reason: string | null = null;
  if (ending.state === 'landed' || ending.state === 'failed' || ending.state === 'canceled') {
    timestamps[ending.state] = at(ending.at);
    reason = ending.state === 'landed' ? null : (ending.reason ?? ending.state);
  }
  return { ...base, state: ending.state, reason, timestamps, ...extra };
}

const result = (name: string, seconds: number, status = 'exit 0') => ({ name, outcome: 'exited', status, seconds });
export const ran = (...results: [string, number, string?][]) => results.map(([name, seconds, status]) => result(name, seconds, status));

export function train(id: string, time: number, members: number[], fields: Record<string, unknown>): HistoryTrain {
  return {
    at: at(time),
    time: T0 + time * 1000,
    train: id,
    batch: `batch-${id}`,
    attempt: 1,
    members: members.map((n) => `j-${n}`),
    verdict: 'PASS',
    reason: null,
    landed: true,
    cached: false,
    gateSeconds: 0,
    ...fields,
  } as HistoryTrain;
}

export function history(parts: Partial<History> = {}): History {
  return {
    readAt: T0 + 3_600_000,
    since: null,
    problems: [],
    jobs: [],
    corruptJobs: 0,
    trains: [],
    unreadableTrains: 0,
    window: [],
    windowNow: null,
    windowFrom: 'here',
    voided: [],
    abandoned: [],
    ...parts,
  };
}

const gateRun = (run: number, trainId: string, verdict: 'PASS' | 'FAIL', results: ReturnType<typeof ran>) => ({
  run,
  train: trainId,
  cached: false,
  verdict,
  reason: verdict === 'PASS' ? null : 'gate',
  gate: verdict === 'PASS' ? null : 'test',
  status: verdict === 'PASS' ? null : 'exit 1',
  seconds: results.reduce((sum, r) => sum + r.seconds, 0),
  log: null,
  results,
});

const flakyRuns = [gateRun(1, 't6a', 'FAIL', ran(['lint', 2], ['test', 10, 'exit 1'])), gateRun(2, 't6b', 'PASS', ran(['lint', 3], ['test', 12]))];

/** The queue of the tests (test/stats/figures.unit.test.ts states each figure it gives, and why). */
export function sampleHistory(): History {
  const jobs: JobRecord[] = [
    job(1, 0, { state: 'landed', at: 100 }),
    job(2, 10, { state: 'landed', at: 100 }),
    job(3, 20, { state: 'failed', at: 300, reason: 'gate' }),
    job(4, 30, { state: 'landed', at: 330 }),
    job(5, 40, { state: 'failed', at: 50, reason: 'conflict' }),
    job(6, 60, { state: 'canceled', at: 70 }),
    job(7, 1100, { state: 'queued' }),
    job(8, 1100, { state: 'in_progress' }),
    job(
      9,
      400,
      { state: 'landed', at: 410 },
      {
        fastPath: { alone: true, source: 'proof', proofSource: 'train', tree: hex(9), base: hex(1), checkedAt: at(405) },
      },
    ),
    job(
      10,
      500,
      { state: 'landed', at: 700 },
      {
        flaky: { gate: 'test', tree: hex(10), train: 't6', failed: flakyRuns[0], passed: flakyRuns[1] } as JobRecord['flaky'],
      },
    ),
    job(11, 800, { state: 'landed', at: 900 }),
    // Landed by another drainer (a queue kept in a remote): its record names a flaky gate, no row here.
    job(
      12,
      1000,
      { state: 'landed', at: 1060 },
      {
        flaky: {
          gate: 'test',
          tree: hex(12),
          train: 'tz',
          failed: { ...flakyRuns[0], train: 'tz1' },
          passed: { ...flakyRuns[1], train: 'tz2' },
        } as JobRecord['flaky'],
      },
    ),
  ];
  const full = (results: ReturnType<typeof ran>) => ({ mode: 'full', executed: results.map((r) => r.name), results });
  const w = (windowBefore: number, windowAfter: number) => ({ windowBefore, windowAfter });
  const trains = [
    train('t1', 90, [1, 2], { gateSeconds: 20, gate: full(ran(['lint', 2], ['test', 18])), ...w(8, 8) }),
    train('t2', 150, [3, 4], {
      verdict: 'FAIL',
      reason: 'gate',
      landed: false,
      gateSeconds: 30,
      gate: full(ran(['lint', 2], ['test', 28, 'exit 1'])),
      ...w(8, 8),
    }),
    train('t3', 200, [3], {
      verdict: 'FAIL',
      reason: 'gate',
      landed: false,
      cached: true,
      gate: { mode: 'cached', source: 'cache', executed: [] },
      ...w(8, 4),
    }),
    train('t4', 320, [4], { gateSeconds: 25, gate: full(ran(['lint', 3], ['test', 22])), ...w(4, 4) }),
    train('t5', 405, [9], { cached: true, gate: { mode: 'cached', source: 'proof', executed: [] }, ...w(4, 4) }),
    train('t6', 690, [10], { gateSeconds: 27, flaky: true, runs: flakyRuns, gate: full(ran(['lint', 3], ['test', 12])), ...w(4, 8) }),
    train('t7', 850, [11], { landed: false, reason: 'cas_lost', gateSeconds: 5, gate: full(ran(['lint', 1], ['test', 4])), ...w(2, 2) }),
    train('t8', 890, [11], { gateSeconds: 5, gate: full(ran(['lint', 1], ['test', 4])), ...w(2, 4) }),
  ];
  const windowEntries: WindowHistoryEntry[] = [
    { at: at(200), event: 'FAIL', before: 8, after: 4, train: 't3', jobs: 1, culprits: 1 },
    { at: at(750), event: 'set', before: 8, after: 2, train: null, by: 'ada@example.com' },
  ];
  const abandoned: AbandonedTrain[] = [{ train: 'tx', at: T0 + 840_000, members: ['j-11'], reason: 'speculation_abandoned' }];
  return history({ jobs, trains, window: windowEntries, windowNow: 4, abandoned });
}
