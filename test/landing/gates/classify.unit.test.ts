// How a gate's ending is classified (lib/landing/gates/gateRunner.ts classify): 126 and 127 (not
// executable, command not found) mean the gate never ran the code under test: INFRA, requeued and
// retried, never a FAIL of the change, and never cached (only PASS and `fail` kinds are cached,
// gates/judgeRecord.ts).
import { describe, expect, it } from 'vitest';
import { gateSchema } from '../../../lib/config/schema.js';
import { classify, verdictOf } from '../../../lib/landing/gates/gateRunner.js';

const gate = gateSchema.parse({ name: 'test', run: 'npm test' });
const exited = (code: number) => ({ kind: 'exited' as const, code, seconds: 1 });

describe('classify: what a gate exit status says about the change', () => {
  it.each([126, 127])('exit %i is an infrastructure failure (gate_not_started)', (code) => {
    const failure = classify(gate, exited(code));
    expect(failure).toEqual({ kind: 'infra', reason: 'gate_not_started', gate: 'test', status: `exit ${code}` });
    expect(verdictOf(failure).verdict).toBe('INFRA');
  });

  it.each([1, 2, 125, 128])('exit %i is a FAIL of the change', (code) => {
    expect(verdictOf(classify(gate, exited(code))).verdict).toBe('FAIL');
  });

  it('exit 0 passes; a command that could not be spawned is infrastructure too', () => {
    expect(classify(gate, exited(0))).toBeNull();
    expect(classify(gate, { kind: 'spawn_failed', message: 'ENOENT', errno: 'ENOENT', seconds: 0 })).toMatchObject({
      kind: 'infra',
      reason: 'gate_not_started',
    });
  });
});
