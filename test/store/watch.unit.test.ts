// The store's wait for job-record changes: fs.watch wakes it at once, the poll catches a change
// without fs.watch, a temp file alone (a write not yet renamed) wakes nothing, and a change made
// before the wait started is not missed.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newJobRecord } from '../../lib/queue/index.js';
import { localStore, type QueueStore } from '../../lib/store/index.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

const TIP = 'c'.repeat(40);
const record = (id: string) => newJobRecord({ id, branch: `branch-${id}`, tip: TIP, title: id, submitter: 't', urgent: false });

function store(): QueueStore {
  const s = localStore(join(tempDir(), 'land'));
  s.ensure();
  return s;
}

const later = (ms: number, fn: () => void) => setTimeout(fn, ms);

describe('QueueStore.waitForChange', () => {
  it('wakes through fs.watch long before the next poll', async () => {
    const s = store();
    const since = s.jobsVersion();
    const started = Date.now();
    later(200, () => s.writeJob(record('j-20260101-0001')));
    const outcome = await s.waitForChange({ since, timeoutMs: 20_000, pollMs: 60_000 });
    expect(outcome).toEqual({ kind: 'changed', by: 'watch' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('wakes through the poll alone when polling is forced', async () => {
    const s = store();
    s.writeJob(record('j-20260101-0001'));
    const since = s.jobsVersion();
    later(100, () => s.writeJob({ ...record('j-20260101-0001'), title: 'rewritten' }));
    const outcome = await s.waitForChange({ since, timeoutMs: 20_000, poll: true, pollMs: 150 });
    expect(outcome).toEqual({ kind: 'changed', by: 'poll' });
  });

  it('ignores a temp file (an unfinished write) and other files, then times out', async () => {
    const s = store();
    const since = s.jobsVersion();
    later(50, () => {
      writeFileSync(join(s.paths.jobsDir, 'j-20260101-0001.json.tmp-1-abcd'), '{');
      writeFileSync(join(s.paths.jobsDir, 'notes.txt'), 'x');
    });
    expect(await s.waitForChange({ since, timeoutMs: 600, pollMs: 100 })).toEqual({ kind: 'timeout' });
    expect(s.jobsVersion()).toBe(since);
  });

  it('returns at once for a change made before the wait, and ends on the signal', async () => {
    const s = store();
    const since = s.jobsVersion();
    s.writeJob(record('j-20260101-0002'));
    expect((await s.waitForChange({ since, timeoutMs: 20_000, pollMs: 60_000 })).kind).toBe('changed');
    const stop = new AbortController();
    later(100, () => stop.abort());
    expect(await s.waitForChange({ since: s.jobsVersion(), signal: stop.signal, pollMs: 60_000 })).toEqual({ kind: 'aborted' });
  });
});
