// After a power cut, a record written without fsync is compared with the journal's fold: kept when
// they agree, rewritten when the file is missing, unreadable or behind, reported when neither holds it.
import { describe, expect, it } from 'vitest';
import { checkRecord, newJobRecord, sameRecord, type Fold } from '../../lib/queue/index.js';
import type { JobRead, JobRecord } from '../../lib/store/index.js';

const job = newJobRecord({ id: 'j-20260101-0001', branch: 'x', tip: 'a'.repeat(40), title: 'x', submitter: 't', urgent: false });
const running: JobRecord = { ...job, state: 'in_progress', attempts: 1 };
const folded: Fold = { ok: true, job: running };
const ok = (record: JobRecord): JobRead => ({ ok: true, job: record });
const unreadable: JobRead = { ok: false, corrupt: { file: `${job.id}.json`, problem: 'empty file' } };
const olderVersion: Fold = { ok: false, problem: 'the submitted line does not hold the initial record' };

describe('a record against its journal after a power cut', () => {
  it('compares fields and values, not key order', () => {
    const reordered = Object.fromEntries(Object.entries(running).reverse()) as JobRecord;
    expect(sameRecord(reordered, running)).toBe(true);
    expect(sameRecord({ ...running, title: 'y' }, running)).toBe(false);
  });

  it('keeps a record equal to the fold; rewrites one missing, unreadable or behind it', () => {
    expect(checkRecord(ok(running), folded)).toEqual({ kind: 'keep' });
    expect(checkRecord(ok(job), folded)).toEqual({ kind: 'rewrite', job: running });
    expect(checkRecord(unreadable, folded)).toEqual({ kind: 'rewrite', job: running });
    expect(checkRecord(null, folded)).toEqual({ kind: 'rewrite', job: running });
  });

  it('keeps what the journal cannot fold; reports it only when the file is unreadable too; a pruned job stays pruned', () => {
    expect(checkRecord(ok(job), olderVersion)).toEqual({ kind: 'keep' });
    expect(checkRecord(null, olderVersion)).toEqual({ kind: 'keep' }); // the rebuild of missing records reports it
    expect(checkRecord(unreadable, { ok: false, problem: 'pruned', pruned: true })).toEqual({ kind: 'keep' });
    const bad = checkRecord(unreadable, olderVersion);
    expect(bad).toEqual({ kind: 'corrupt', problem: expect.stringMatching(/empty file, and the journal cannot rebuild it: the submitted line/) });
  });
});
