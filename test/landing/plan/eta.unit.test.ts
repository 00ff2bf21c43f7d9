// The estimates' pure half: gate durations read out of metrics rows, the median, and when a
// queued job may land given the window and whether a train is running.
import { describe, expect, it } from 'vitest';
import {
  etaBasis,
  etaSeconds,
  expectedGateSeconds,
  gateHistoryFromMetrics,
  gatesInForce,
  HISTORY_KEPT,
  NO_HISTORY,
  NO_DRAINER,
  NO_WINDOW,
  recentMedian,
  trainsUntilLanded,
} from '../../../lib/landing/plan/eta.js';

const gated = (seconds: number[], extra: Record<string, unknown> = {}) => ({
  train: 't',
  verdict: 'PASS',
  cached: false,
  gateSeconds: seconds.reduce((a, b) => a + b, 0),
  gate: { mode: 'full', results: seconds.map((s, i) => ({ name: i === 0 ? 'test' : `gate${i}`, outcome: 'exited', status: 'exit 0', seconds: s })) },
  ...extra,
});

describe('gateHistoryFromMetrics', () => {
  it('takes the trains that ran their gates, per train and per gate name', () => {
    const history = gateHistoryFromMetrics([gated([10, 5]), gated([20]), gated([30], { verdict: 'FAIL' })]);
    expect(history.trainSeconds).toEqual([15, 20, 30]);
    expect(history.gateSeconds).toEqual({ test: [10, 20, 30], gate1: [5] });
  });

  it('leaves out cached verdicts, INFRA trains, gates that never ran and rows of another shape', () => {
    const history = gateHistoryFromMetrics([
      gated([7], { cached: true }),
      gated([0.1], { verdict: 'INFRA' }),
      { verdict: 'PASS', cached: false, gateSeconds: 0, gate: { mode: 'cached', executed: [] } }, // a train judged without a gate
      {
        cached: false,
        gate: {
          results: [
            { name: 'test', outcome: 'exited', status: 'exit 0', seconds: 4 },
            { name: 'lint', outcome: 'spawn_failed', status: 'could not start', seconds: 0 },
          ],
        },
      },
      null,
      'not a row',
      { gate: { results: [{ name: 'test', seconds: 'slow' }] } },
    ]);
    // The fourth row counts as a train (no gateSeconds: the sum of its results); lint is not measured.
    expect(history.trainSeconds).toEqual([4]);
    expect(history.gateSeconds).toEqual({ test: [4] });
  });
});

describe('the history of the gates in force (keyed by the gates hash)', () => {
  const gate = (name: string, run: string) => ({ name, run, timeoutSeconds: 600, env: {}, passEnv: [] });
  const before = [gate('test', 'sleep 1')];
  const after = [gate('test', 'npm test')];
  const lint = gate('lint', 'npm run lint');
  const now = gatesInForce([...after, lint]);
  /** A row as this version writes it: the policy's gates hash, each run with its gate's own hash. */
  const under = (gates: typeof before, seconds: number[]) => {
    const hashes = gatesInForce(gates);
    const row = gated(seconds);
    const results = row.gate.results.map((result, i) => ({ ...result, name: gates[i]?.name, hash: hashes.gateHashes[gates[i]?.name ?? ''] }));
    return { ...row, gate: { ...row.gate, gatesHash: hashes.gatesHash, results } };
  };

  it("ignores the runs of a gate whose command changed, for the train's ETA and the gate's expected time", () => {
    const rows = [under(before, [100]), under(before, [100]), under([...after, lint], [7, 3])];
    const history = gateHistoryFromMetrics(rows, now);
    expect(history.trainSeconds).toEqual([10]);
    expect(expectedGateSeconds(history, 'test')).toBe(7);
    // Without the gates in force every run counts, as before.
    expect(expectedGateSeconds(gateHistoryFromMetrics(rows), 'test')).toBe(100);
  });

  it("keeps a gate's history when only another gate changed; the train's total starts afresh", () => {
    const history = gateHistoryFromMetrics([under([...after, { ...lint, run: 'eslint .' }], [8, 2])], now);
    expect(history.gateSeconds).toEqual({ test: [8] });
    expect(history.trainSeconds).toEqual([]);
  });

  it("with nothing measured under the current gates, no history (not the old command's)", () => {
    const history = gateHistoryFromMetrics([under(before, [100])], now);
    expect(history).toEqual({ trainSeconds: [], gateSeconds: {} });
  });

  it('rows that recorded no hash count only until a row under the current hash exists', () => {
    const old = gated([50]); // written before rows carried a hash
    expect(gateHistoryFromMetrics([old], now)).toEqual({ trainSeconds: [50], gateSeconds: { test: [50] } });
    const current = under([...after, lint], [6, 1]);
    const history = gateHistoryFromMetrics([old, current], now);
    expect(history.trainSeconds).toEqual([7]);
    expect(history.gateSeconds).toEqual({ test: [6], lint: [1] });
  });

  it("a run without its own hash is judged by its row's gates hash", () => {
    const row = under([...after, lint], [9, 4]);
    const bare = { ...row, gate: { ...row.gate, results: row.gate.results.map(({ hash: _, ...rest }) => rest) } };
    expect(gateHistoryFromMetrics([bare], now).gateSeconds).toEqual({ test: [9], lint: [4] });
    const otherRow = under(before, [90]);
    const otherBare = { ...otherRow, gate: { ...otherRow.gate, results: otherRow.gate.results.map(({ hash: _, ...rest }) => rest) } };
    expect(gateHistoryFromMetrics([otherBare], now).gateSeconds).toEqual({});
  });
});

describe('recentMedian and expectedGateSeconds', () => {
  it('is the middle value, or the mean of the two middle values, of the latest runs', () => {
    expect(recentMedian([])).toBeNull();
    expect(recentMedian([9, 1, 5])).toBe(5);
    expect(recentMedian([1, 2, 3, 10])).toBe(2.5);
    // Only the latest HISTORY_KEPT count: a slow past stops weighing on the estimate.
    const old = Array.from({ length: 100 }, () => 1000);
    const recent = Array.from({ length: HISTORY_KEPT }, () => 3);
    expect(recentMedian([...old, ...recent])).toBe(3);
  });

  it('gives a gate the median of its own runs, null when it never ran', () => {
    const history = gateHistoryFromMetrics([gated([10]), gated([30]), gated([20, 2])]);
    expect(expectedGateSeconds(history, 'test')).toBe(20);
    expect(expectedGateSeconds(history, 'gate1')).toBe(2);
    expect(expectedGateSeconds(history, 'docs')).toBeNull();
  });
});

describe('when a queued job may land', () => {
  it('rides train ceil(position / window), after the running train', () => {
    expect([1, 2, 3, 4, 5].map((p) => trainsUntilLanded(p, 2, false))).toEqual([1, 1, 2, 2, 3]);
    expect([1, 2, 3].map((p) => trainsUntilLanded(p, 2, true))).toEqual([2, 2, 3]);
    expect([1, 2, 3].map((p) => trainsUntilLanded(p, 1, false))).toEqual([1, 2, 3]);
  });

  it('is trains ahead × the median train, with the basis it rests on', () => {
    const history = gateHistoryFromMetrics([gated([60]), gated([120]), gated([90])]);
    const basis = etaBasis(history, 3, true);
    expect(basis).toEqual({ medianTrainSeconds: 90, trainsMeasured: 3, window: 3, runningTrain: true, reason: null });
    expect([1, 3, 4, 7].map((p) => etaSeconds(p, basis))).toEqual([180, 180, 270, 360]);
    expect(etaSeconds(1, etaBasis(history, 3, false))).toBe(90);
  });

  it('says there is no history yet instead of guessing', () => {
    const basis = etaBasis(gateHistoryFromMetrics([gated([5], { cached: true })]), 4, false);
    expect(basis).toMatchObject({ medianTrainSeconds: null, trainsMeasured: 0, reason: NO_HISTORY });
    expect(basis.reason).toMatch(/no history yet/);
    expect(etaSeconds(1, basis)).toBeNull();
  });

  it('gives no estimate when the window is unknown (no readable policy), and says why', () => {
    const basis = etaBasis(gateHistoryFromMetrics([gated([10])]), null, false);
    expect(basis).toMatchObject({ medianTrainSeconds: 10, window: null, reason: NO_WINDOW });
    expect(etaSeconds(1, basis)).toBeNull();
  });

  it('gives no estimate when no drainer runs (a remote queue whose lease nobody holds), whatever the history', () => {
    const history = gateHistoryFromMetrics([gated([10])]);
    const idle = etaBasis(history, 4, false, { drainerRunning: false });
    expect(idle).toMatchObject({ medianTrainSeconds: 10, window: 4, reason: NO_DRAINER });
    expect(etaSeconds(1, idle)).toBeNull();
    expect(etaSeconds(1, etaBasis(history, 4, false, { drainerRunning: true }))).toBe(10);
  });

  it('treats a window below one as one and refuses positions that are not queue positions', () => {
    const basis = etaBasis(gateHistoryFromMetrics([gated([10])]), 0, false);
    expect(basis.window).toBe(1);
    expect(etaSeconds(2, basis)).toBe(20);
    expect(etaSeconds(0, basis)).toBeNull();
    expect(etaSeconds(1.5, basis)).toBeNull();
  });
});
