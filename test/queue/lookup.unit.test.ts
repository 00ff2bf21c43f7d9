// Which job an argument names (lib/queue/lookup.ts), and which failed job a new submission follows
// (lib/queue/submit.ts failedPredecessor): the pure decisions; test/cli/lookup.test.ts runs them
// through the commands.
import { describe, expect, it } from 'vitest';
import { classifyJobArg, latestJob, unknownNameError } from '../../lib/queue/lookup.js';
import { failedPredecessor, newJobRecord } from '../../lib/queue/submit.js';
import type { JobRecord, JobState } from '../../lib/store/index.js';

function job(id: string, queued: string, state: JobState = 'queued'): JobRecord {
  const record = newJobRecord({ id, branch: 'feature', tip: 'a'.repeat(40), title: 'feature', submitter: 't', urgent: false });
  return { ...record, state, timestamps: { queued } };
}

describe('classifyJobArg', () => {
  it('an id-looking argument is an id, anything else a branch, none the checked-out branch', () => {
    expect(classifyJobArg('j-20261130-0004')).toEqual({ kind: 'id', id: 'j-20261130-0004' });
    expect(classifyJobArg('j-20261130-12345')).toEqual({ kind: 'id', id: 'j-20261130-12345' });
    for (const branch of ['feature/login', 'j-1', 'J-20261130-0004', 'j-20261130-0004x', 'main', "fix/it's;$(id)"]) {
      expect(classifyJobArg(branch)).toEqual({ kind: 'branch', branch });
    }
    expect(classifyJobArg(undefined)).toEqual({ kind: 'current' });
    expect(classifyJobArg('')).toEqual({ kind: 'current' });
  });
});

describe('latestJob', () => {
  it('is the last submitted; the id breaks a tie of queued times; none of no jobs', () => {
    const a = job('j-20261130-0002', '2026-11-30T10:00:00Z');
    const b = job('j-20261130-0009', '2026-11-30T11:00:00Z');
    const c = job('j-20261130-0010', '2026-11-30T11:00:00Z');
    expect(latestJob([b, a])?.id).toBe(b.id);
    expect(latestJob([c, a, b])?.id).toBe(c.id);
    expect(latestJob([a])?.id).toBe(a.id);
    expect(latestJob([])).toBeNull();
  });
});

describe('unknownNameError', () => {
  it('is not_found (exit 4), names the name, and suggests the nearest known one only when close', () => {
    const near = unknownNameError('feature/logn', ['main', 'feature/login', 'other']);
    expect(near.code).toBe('not_found');
    expect(near.message).toBe('no job or branch with jobs named "feature/logn"; did you mean feature/login?');
    const far = unknownNameError('zzzzzz', ['main', 'feature/login']);
    expect(far.message).toBe('no job or branch with jobs named "zzzzzz"');
    expect(far.hint).toContain('land status --all');
    // A local branch without jobs (its jobs pruned by land gc): said so, never "did you mean" itself.
    const own = unknownNameError('fix-sub', ['main', 'fix-sub']);
    expect(own.code).toBe('not_found');
    expect(own.message).toBe('the branch "fix-sub" has no job in the queue');
    expect(own.hint).toBe('land submit fix-sub queues it; land status --all lists the jobs');
  });
});

describe('failedPredecessor', () => {
  it("names the branch's latest job when it failed; none when it landed, was canceled, or there is none", () => {
    const old = job('j-20261130-0001', '2026-11-30T09:00:00Z', 'failed');
    const failed = job('j-20261130-0003', '2026-11-30T10:00:00Z', 'failed');
    expect(failedPredecessor([old, failed])).toBe(failed.id);
    for (const state of ['landed', 'canceled'] as const) {
      expect(failedPredecessor([failed, job('j-20261130-0004', '2026-11-30T11:00:00Z', state)])).toBeNull();
    }
    expect(failedPredecessor([])).toBeNull();
  });
});
