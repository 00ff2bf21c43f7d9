// `land show`'s sentences for the nested parts of a job record: the fast-path decision, the gate
// telemetry (each variant the drain writes, and the legacy ones) and the ledger observations.
import { describe, expect, it } from 'vitest';
import { describeFastPath, describeFlaky, describeGate, describeLedger } from '../../lib/cli/describeJob.js';
import type { GateRun } from '../../lib/store/index.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('describeFastPath', () => {
  it('says how a job landed alone, why it was gated, and when a cached FAIL judged it', () => {
    expect(describeFastPath(undefined)).toBeNull();
    expect(describeFastPath({ alone: true, source: 'cache', proofSource: null, tree: A, base: B, checkedAt: 'x' })).toBe(
      `lands alone without a gate: cached PASS on ${B.slice(0, 12)}`,
    );
    expect(describeFastPath({ alone: true, source: 'proof', proofSource: 'local', tree: A, base: B, checkedAt: 'x' })).toBe(
      `lands alone without a gate: local proof on ${B.slice(0, 12)}`,
    );
    expect(describeFastPath({ alone: true, source: 'proof', proofSource: null, tree: A, base: B, checkedAt: 'x' })).toBe(
      `lands alone without a gate: proof on ${B.slice(0, 12)}`,
    );
    expect(describeFastPath({ alone: false, refusal: 'target_moved', tree: A, base: B, checkedAt: 'x' })).toBe(
      `gated (target_moved): the target moved since the proof (it was tested on another target tree) on ${B.slice(0, 12)}`,
    );
    expect(describeFastPath({ alone: false, refusal: 'conflict', tree: null, base: B, checkedAt: 'x' })).toBe(
      `gated (conflict): the tip conflicts with the target on ${B.slice(0, 12)}`,
    );
    expect(describeFastPath({ alone: false, refusal: 'cached_fail', cachedFrom: 'b-7-1', cachedLog: null, tree: A, base: B, checkedAt: 'x' })).toBe(
      `failed from the verdict cache: the same tree failed in train b-7-1 on ${B.slice(0, 12)}`,
    );
    expect(describeFastPath({ alone: false, refusal: 'cached_fail', tree: A, base: B, checkedAt: 'x' })).toBe(
      `gated (cached_fail): the verdict cache holds a FAIL for this tree on ${B.slice(0, 12)}`,
    );
  });
});

describe('describeGate', () => {
  it('describes a verdict from the verdict cache and a fast path', () => {
    expect(describeGate(null)).toEqual([]);
    expect(
      describeGate({
        mode: 'cached',
        source: 'cache',
        cachedFrom: 'b-1-1',
        cachedVerdict: 'FAIL',
        cachedLog: '/l/b-1-1.log',
        planBase: A,
        executed: [],
        gatesHash: 'h',
      }),
    ).toEqual([
      `mode cached on ${A.slice(0, 12)}`,
      'from cache (FAIL of train b-1-1); log /l/b-1-1.log',
      'executed none (no gate ran: the verdict was not judged again)',
    ]);
    expect(describeGate({ mode: 'cached', source: 'proof', proofSource: 'train', planBase: A, executed: [], gatesHash: 'h' })).toEqual([
      `mode cached on ${A.slice(0, 12)}`,
      'from proof',
      'executed none (no gate ran: the verdict was not judged again)',
    ]);
  });

  it('describes a selection that ran gates, with refresh entries, and the legacy shapes', () => {
    expect(
      describeGate({
        mode: 'selective',
        planBase: A,
        selected: ['test', 'lint'],
        executed: ['test', 'lint'],
        cached: [{ gate: 'docs', from: B }],
        missReasons: { test: 'no paths: always runs', lint: 'changed: a.ts' },
        fallbackReason: null,
        gatesHash: 'h',
        refreshed: ['lockfile'],
        results: [{ name: 'test', outcome: 'exited', status: 'exit 0', seconds: 1 }],
      }),
    ).toEqual([
      `mode selective on ${A.slice(0, 12)}`,
      'selected test, lint',
      'executed test, lint',
      `cached docs (PASS at ${B.slice(0, 12)})`,
      'runs test: no paths: always runs',
      'runs lint: changed: a.ts',
      'refreshed: lockfile',
    ]);
    expect(
      describeGate({
        mode: 'full',
        planBase: A,
        selected: [],
        executed: [],
        cached: [],
        missReasons: {},
        fallbackReason: 'git could not compute the selection',
      }),
    ).toEqual([`mode full on ${A.slice(0, 12)}`, 'selected -', 'executed -', 'fallback: git could not compute the selection']);
    expect(describeGate({ mode: 'full', executed: [], refresh: { kind: 'failed', entry: 'lockfile', status: 'exit 2' }, gatesHash: 'h' })).toEqual([
      'mode full',
      'executed -',
    ]);
    expect(describeGate({ mode: 'cached', cachedFrom: 'b-1-1', executed: [], gatesHash: 'h' })).toEqual([
      'mode cached',
      'executed none (no gate ran: the verdict was not judged again)',
    ]);
    expect(describeGate({ mode: 'none', executed: [], gatesHash: 'h' })).toEqual(['mode none', 'executed -']);
  });
});

describe('describeLedger', () => {
  it('describes a found ledger line, a missing one and an unreadable ledger', () => {
    expect(describeLedger(undefined)).toEqual([]);
    const line = {
      version: 1 as const,
      job: 'gen',
      track: 'gen',
      start: '2026-01-01T00:00:00.000Z',
      end: '2026-01-01T00:00:02.000Z',
      wallSeconds: 2,
      cpuSeconds: 1.5,
      cpuHours: 0.0004,
      peakRssBytes: null,
      exitCode: 3,
      signal: null,
      status: 3,
      interruptedBy: null,
      host: 'h',
      gitHead: null,
      cwd: '/w',
      measureDir: '/w',
      counts: { timings: {}, timingSeconds: null, compiled: null, candidates: null, received: null, completionTokens: null, scored: null, best: null },
    };
    expect(describeLedger({ build: line, docs: { missing: true, ledgerDir: '/ledger' }, lint: { missing: true, ledgerDir: null, error: 'EACCES' } })).toEqual([
      'build: ledger line of gen, exit 3, 2s wall, 1.5s CPU, started 2026-01-01T00:00:00.000Z',
      'docs: no ledger line found in /ledger',
      'lint: no ledger line found',
    ]);
  });
});

describe('describeFlaky', () => {
  const run = (n: number, verdict: GateRun['verdict'], extra: Partial<GateRun> = {}): GateRun => ({
    ...{ run: n, train: 'b-1-2', cached: false, verdict, reason: null, gate: null, status: null, seconds: 1, log: null, results: [] },
    ...extra,
  });

  it('names the run that failed and the one that passed; a cached FAIL without nested brackets', () => {
    const failed = run(1, 'FAIL', { status: 'exit 1', gate: 'test' });
    expect(describeFlaky({ gate: 'test', tree: A, train: 'b-1-2', failed, passed: run(2, 'PASS') })).toBe(
      `gate test failed (exit 1) in run 1 of train b-1-2, then passed in run 2 of train b-1-2 on tree ${A.slice(0, 12)}`,
    );
    const cached = run(1, 'FAIL', { cached: true, train: 'b-0-1', status: 'exit 1 (cached: the same tree failed in train b-0-1)' });
    expect(describeFlaky({ gate: 'test', tree: A, train: 'b-1-2', failed: cached, passed: run(2, 'PASS') })).toBe(
      `gate test failed (exit 1) in the cached FAIL of train b-0-1, then passed in run 2 of train b-1-2 on tree ${A.slice(0, 12)}`,
    );
  });
});
