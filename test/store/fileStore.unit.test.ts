// The state folder: atomic writes leave no temp file; readers skip temp files and report corrupt
// records by file name; the queue lock's holder cleans temp files up.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isLandError } from '../../lib/errors.js';
import { newJobRecord } from '../../lib/queue/index.js';
import { localStore, type QueueStore, writeJsonAtomic } from '../../lib/store/index.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

const TIP = 'b'.repeat(40);
const record = (id: string) => newJobRecord({ id, branch: `branch-${id}`, tip: TIP, title: id, submitter: 't', urgent: false });

function store(): QueueStore {
  const s = localStore(join(tempDir(), 'land'));
  s.ensure();
  return s;
}

describe('atomic write', () => {
  it('writes the whole value, replaces an old one and leaves no temp file', () => {
    const dir = tempDir();
    const path = join(dir, 'deep', 'value.json');
    writeJsonAtomic(path, { a: 1 });
    writeJsonAtomic(path, { a: 2, b: [1, 2] });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ a: 2, b: [1, 2] });
    expect(readdirSync(join(dir, 'deep'))).toEqual(['value.json']);
  });
});

describe('QueueStore jobs', () => {
  it('round-trips a record and refuses an id that is not an id', () => {
    const s = store();
    const job = record('j-20260101-0001');
    s.writeJob(job);
    expect(s.readJob(job.id)).toEqual(job);
    expect(readdirSync(s.paths.jobsDir)).toEqual([`${job.id}.json`]);
    expect(s.readJob('j-20260101-0002')).toBeNull();
    for (const bad of ['../x', 'A', 'a/b', '']) {
      expect(() => s.readJob(bad)).toThrowError(/invalid job id/);
      expect(() => s.writeJob({ ...job, id: bad })).toThrowError(/invalid job id/);
    }
    expect(readdirSync(s.paths.jobsDir)).toEqual([`${job.id}.json`]);
  });

  it('lists good records, reports corrupt ones by file name and ignores temp files', () => {
    const s = store();
    const good = ['j-20260101-0001', 'j-20260101-0003'].map(record);
    for (const job of good) s.writeJob(job);
    const dir = s.paths.jobsDir;
    const whole = JSON.stringify(record('j-20260101-0002'));
    writeFileSync(join(dir, 'j-20260101-0002.json'), whole.slice(0, whole.length / 2));
    writeFileSync(join(dir, 'j-20260101-0004.json'), JSON.stringify({ ...record('j-20260101-0004'), state: 'exploded' }));
    writeFileSync(join(dir, 'j-20260101-0005.json'), JSON.stringify(record('j-20260101-0009')));
    writeFileSync(join(dir, 'j-20260101-0003.json.tmp-1-abcd'), '{');
    writeFileSync(join(dir, 'notes.txt'), 'hello');

    const listing = s.listJobs();
    expect(listing.jobs.map((j) => j.id)).toEqual(['j-20260101-0001', 'j-20260101-0003']);
    expect(listing.corrupt.map((c) => c.file)).toEqual(['j-20260101-0002.json', 'j-20260101-0004.json', 'j-20260101-0005.json']);
    expect(listing.corrupt[0]?.problem).toMatch(/not valid JSON/);
    expect(listing.corrupt[1]?.problem).toMatch(/^state:/);
    expect(s.jobFileIds().sort()).toEqual(['j-20260101-0001', 'j-20260101-0002', 'j-20260101-0003', 'j-20260101-0004', 'j-20260101-0005']);

    let error: unknown;
    try {
      s.readJob('j-20260101-0002');
    } catch (e) {
      error = e;
    }
    expect(isLandError(error, 'corrupt')).toBe(true);
    expect((error as Error).message).toContain('j-20260101-0002.json');
  });

  it('removes temp files under the queue lock, and only temp files', async () => {
    const s = store();
    s.writeJob(record('j-20260101-0001'));
    const temp = join(s.paths.jobsDir, 'j-20260101-0002.json.tmp-123-beef');
    writeFileSync(temp, '{"half":');
    const seen = await s.withQueueLock(() => readdirSync(s.paths.jobsDir));
    expect(seen).toEqual(['j-20260101-0001.json']);
    expect(existsSync(temp)).toBe(false);
  });

  it('serializes read-modify-write sections under the queue lock', async () => {
    const s = store();
    const counter = join(s.paths.root, 'counter.json');
    writeJsonAtomic(counter, { n: 0 });
    await Promise.all(
      Array.from({ length: 10 }, () =>
        s.withQueueLock(async () => {
          const { n } = JSON.parse(readFileSync(counter, 'utf8')) as { n: number };
          await new Promise((resolve) => setTimeout(resolve, 5));
          writeJsonAtomic(counter, { n: n + 1 });
        }),
      ),
    );
    expect(JSON.parse(readFileSync(counter, 'utf8'))).toEqual({ n: 10 });
  });

  it('reports a corrupt window.json instead of resetting it', () => {
    const s = store();
    expect(s.readWindow()).toBeNull();
    s.writeWindow({ size: 3, history: [] });
    expect(s.readWindow()).toEqual({ size: 3, history: [] });
    writeFileSync(s.paths.window, '{"size": 0');
    expect(() => s.readWindow()).toThrowError(/window.json/);
    expect(readFileSync(s.paths.window, 'utf8')).toBe('{"size": 0');
  });
});
