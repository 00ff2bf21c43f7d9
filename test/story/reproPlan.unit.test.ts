// The pure choices of `land repro`: which train, which gates, which environment.
import { describe, expect, it } from 'vitest';
import { policySchema } from '../../lib/config/schema.js';
import { assertRebuildable, latestFailedRow, reproEnv, reproGates } from '../../lib/story/repro.js';
import type { TrainRow } from '../../lib/story/trainRow.js';

const BASE = 'b'.repeat(40);

function row(train: string, members: string[], verdict: string, extra: Partial<TrainRow> = {}): TrainRow {
  return { train, batch: 'b-1', members, tips: members.map(() => 'a'.repeat(40)), base: BASE, verdict, ...extra };
}

describe('land repro: the plan', () => {
  it("takes the latest FAIL train the job rode; INFRA and PASS trains and other jobs' trains do not count", () => {
    const rows = [
      row('t-1', ['j-1', 'j-2'], 'FAIL'),
      row('t-2', ['j-1'], 'FAIL'),
      row('t-3', ['j-1'], 'INFRA'),
      row('t-4', ['j-2'], 'FAIL'),
      row('t-5', ['j-1'], 'PASS'),
    ];
    expect(latestFailedRow(rows, 'j-1')?.train).toBe('t-2');
    expect(latestFailedRow(rows, 'j-2')?.train).toBe('t-4');
    expect(latestFailedRow(rows, 'j-3')).toBeNull();
  });

  it('refuses a row written before trains recorded their base and tips', () => {
    expect(() => assertRebuildable({ train: 't-1', members: ['j-1'], verdict: 'FAIL', batch: 'b-1', base: BASE })).toThrow(/cannot be rebuilt/);
    expect(assertRebuildable(row('t-1', ['j-1'], 'FAIL')).train).toBe('t-1');
  });

  it('gives the gates the LAND_* variables the train had: the job alone, or the batch', () => {
    const alone = assertRebuildable(row('b-1-3', ['j-1'], 'FAIL'));
    expect(reproEnv(alone, 'c'.repeat(40))).toEqual({ LAND_TIP: 'c'.repeat(40), LAND_BASE: BASE, LAND_JOB: 'j-1', LAND_MEMBERS: 'j-1', LAND_TRAIN: 'b-1-3' });
    const batch = assertRebuildable(row('b-1-1', ['j-1', 'j-2'], 'FAIL'));
    expect(reproEnv(batch, 'c'.repeat(40))).toMatchObject({ LAND_JOB: 'b-1', LAND_MEMBERS: 'j-1 j-2' });
  });

  it('runs the gates the drainer selected, in policy order; all of them for a cached verdict', () => {
    const policy = policySchema.parse({
      target: 'main',
      gates: [
        { name: 'lint', run: 'true' },
        { name: 'test', run: 'true' },
        { name: 'docs', run: 'true', paths: ['docs/**'] },
      ],
    });
    const names = (gates: { name: string }[]) => gates.map((g) => g.name);
    expect(names(reproGates(policy, row('t', ['j'], 'FAIL', { gate: { selected: ['test', 'lint'] } })))).toEqual(['lint', 'test']);
    expect(names(reproGates(policy, row('t', ['j'], 'FAIL', { cached: true, gate: { selected: ['test'] } })))).toEqual(['lint', 'test', 'docs']);
    expect(names(reproGates(policy, row('t', ['j'], 'FAIL')))).toEqual(['lint', 'test', 'docs']);
  });
});
