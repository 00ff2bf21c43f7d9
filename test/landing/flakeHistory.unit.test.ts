// The drain's flake history (lib/landing/flakeHistory.ts): read once, when first asked; the
// drain's own runs added after that read only (before it, their rows are what the read finds).
import { describe, expect, it } from 'vitest';
import { DrainFlakeHistory } from '../../lib/landing/flakeHistory.js';
import type { GateRun } from '../../lib/store/index.js';

function run(n: number, verdict: 'PASS' | 'FAIL', cached = false): GateRun {
  const failed = verdict === 'FAIL';
  const status = failed ? 'exit 1' : 'exit 0';
  return {
    run: n,
    train: 't1',
    cached,
    verdict,
    reason: failed ? 'gate' : null,
    gate: failed ? 'test' : null,
    status: failed ? status : null,
    seconds: 1,
    log: null,
    results: cached ? [] : [{ name: 'test', outcome: 'exited', status, seconds: 1 }],
  };
}

describe('DrainFlakeHistory', () => {
  it('reads the stored history once, when first asked, and adds only the runs that end after that read', () => {
    let reads = 0;
    const history = new DrainFlakeHistory(() => {
      reads += 1;
      return new Map([['test', { passed: 10, flakes: 1 }]]);
    });
    // Before the read: a passing train's row is what the read will find; counting it here too would count it twice.
    history.record([run(1, 'PASS')], 'tree-a');
    expect(reads).toBe(0);
    expect(history.evidence('test')).toEqual({ passed: 10, flakes: 1 });
    expect(history.evidence('lint')).toEqual({ passed: 0, flakes: 0 });
    expect(reads).toBe(1);
    // After it: a clean run, then a tree that failed (cached, then fresh) before it passed.
    history.record([run(1, 'PASS')], 'tree-b');
    history.record([run(1, 'FAIL', true), run(2, 'FAIL'), run(3, 'PASS')], 'tree-c');
    expect(history.evidence('test')).toEqual({ passed: 12, flakes: 3 });
    // A FAIL that stays FAIL is no flake and no clean run.
    history.record([run(1, 'FAIL'), run(2, 'FAIL')], 'tree-d');
    expect(history.evidence('test')).toEqual({ passed: 12, flakes: 3 });
    expect(reads).toBe(1);
  });
});
