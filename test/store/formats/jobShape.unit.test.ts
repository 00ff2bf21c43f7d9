// The shape check `land stats` reads records with (lib/store/jobShape.ts): the fields the figures
// read, with their types; anything else is left to the full schema (land status --all, reconcile).
import { describe, expect, it } from 'vitest';
import { jobShapeProblem } from '../../../lib/store/formats/jobShape.js';
import { job } from '../../helpers/statsFixture.js';

describe('jobShapeProblem', () => {
  const good = job(1, 0, { state: 'landed', at: 10 });

  it('accepts a record, and one with a field only the full schema checks', () => {
    expect(jobShapeProblem(good)).toBeNull();
    expect(jobShapeProblem({ ...good, tip: 'not an object id' })).toBeNull();
  });

  it('names what the figures would trip on', () => {
    expect(jobShapeProblem(null)).toBe('expected an object');
    expect(jobShapeProblem([])).toBe('expected an object');
    expect(jobShapeProblem({ ...good, version: 2 })).toBe('version: expected 1');
    expect(jobShapeProblem({ ...good, id: 7 })).toBe('id: expected a string');
    expect(jobShapeProblem({ ...good, state: 'done' })).toMatch(/^state: expected one of queued, in_progress/);
    expect(jobShapeProblem({ ...good, reason: 3 })).toBe('reason: expected a string or null');
    expect(jobShapeProblem({ ...good, branch: null })).toBe('branch: expected a string');
    expect(jobShapeProblem({ ...good, error: 'boom' })).toBe('error: expected { code, message } or null');
    expect(jobShapeProblem({ ...good, error: { code: 'gate', message: 'exit 1' } })).toBeNull();
    expect(jobShapeProblem({ ...good, timestamps: { landed: 'x' } })).toBe('timestamps: expected an object with queued');
    expect(jobShapeProblem({ ...good, timestamps: { queued: 'x', landed: 5 } })).toBe('timestamps.landed: expected a string');
    expect(jobShapeProblem({ ...good, fastPath: { source: 'proof' } })).toBe('fastPath: expected { alone, ... }');
    expect(jobShapeProblem({ ...good, flaky: { gate: 'test' } })).toBe('flaky: expected { gate, train, ... }');
    expect(jobShapeProblem({ ...good, flaky: { gate: 'test', train: 't', failed: {} } })).toBe('flaky: expected its failed and passed runs');
  });
});
