// Damaged state and hostile ids. Breaks: one job record cut in half, a temp file left by a killed
// writer, ids that try to leave jobs/. Must survive: every other job, listed and readable; the
// damaged record, reported by file name and never rewritten; nothing read or created outside jobs/.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo, type TestRepo } from '../helpers/repo.js';
import { BASIC_POLICY, errorLines, jobDirEntries, jobFiles, jobsDir, stateDir, walk } from '../helpers/state.js';

afterAll(() => cleanupTempDirs());

describe('a truncated job record and a leftover temp file', () => {
  let repo: TestRepo;
  let ids: string[];

  beforeAll(async () => {
    repo = makeRepo({ policy: BASIC_POLICY });
    ids = [];
    for (const branch of ['one', 'two', 'three']) {
      repo.branch(branch, { [`${branch}.txt`]: `${branch}\n` });
      const result = await land(repo.dir, ['submit', branch, '--json']);
      expect(result.code, result.stderr).toBe(0);
      ids.push(result.json().job.id);
    }
  });

  it('is reported by file name and skipped; the other jobs are listed; show exits 8', async () => {
    const [first, broken, third] = ids as [string, string, string];
    const path = join(jobsDir(repo), `${broken}.json`);
    const whole = readFileSync(path, 'utf8');
    const half = whole.slice(0, Math.floor(whole.length / 2));
    writeFileSync(path, half);

    const status = await land(repo.dir, ['status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    const out = status.json();
    expect(out.jobs.map((job: any) => job.id)).toEqual([first, third]);
    expect(out.jobs.map((job: any) => job.position)).toEqual([1, 2]);
    expect(out.corrupt).toHaveLength(1);
    expect(out.corrupt[0].file).toBe(`${broken}.json`);
    expect(status.stderr).toContain(`${broken}.json`);

    const show = await land(repo.dir, ['show', broken]);
    expect(show.code).toBe(8);
    expect(errorLines(show.stderr)).toHaveLength(1);
    expect(errorLines(show.stderr)[0]).toContain(`${broken}.json`);

    const cancel = await land(repo.dir, ['cancel', broken]);
    expect(cancel.code).toBe(8);

    const other = await land(repo.dir, ['show', third, '--json']);
    expect(other.code, other.stderr).toBe(0);
    expect(other.json()).toMatchObject({ id: third, branch: 'three', state: 'queued' });

    // The damaged record is evidence: nobody rewrote or removed it.
    expect(readFileSync(path, 'utf8')).toBe(half);
  });

  it('ignores a temp file in jobs/, and a new submit takes a fresh id', async () => {
    const [, broken, third] = ids as [string, string, string];
    const temp = `${third}.json.tmp-99999-deadbeef`;
    writeFileSync(join(jobsDir(repo), temp), '{"version": 1, "id": "');
    const odd = `j-00000000-0001.tmp-1.json`;
    writeFileSync(join(jobsDir(repo), odd), 'not json');

    const status = await land(repo.dir, ['status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    const out = status.json();
    expect(out.jobs).toHaveLength(2);
    expect(out.corrupt.map((c: any) => c.file)).toEqual([`${broken}.json`]);
    expect(status.stderr).not.toContain('.tmp-');

    repo.branch('four', { 'four.txt': '4\n' });
    const submit = await land(repo.dir, ['submit', 'four', '--json']);
    expect(submit.code, submit.stderr).toBe(0);
    const id = submit.json().job.id;
    expect(ids).not.toContain(id);
    // The writer that holds the queue lock removes temp files; the record files are all there.
    expect(jobDirEntries(repo).filter((name) => name.includes('.tmp-'))).toEqual([]);
    expect(jobFiles(repo)).toEqual([...ids, id].map((i) => `${i}.json`).sort());
  });
});

describe('job ids that are not ids', () => {
  it('refuses path-like names with exit 2, and an unknown id or a branch name without jobs with exit 4', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    const before = walk(dirname(stateDir(repo)));
    for (const args of [
      ['show', '../../etc/passwd'],
      ['show', 'a//b'],
      ['cancel', '../x'],
    ]) {
      const result = await land(repo.dir, args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(errorLines(result.stderr)[0], args.join(' ')).toContain(JSON.stringify(args[1]));
      expect(result.stdout).not.toContain('root:');
    }
    const unknown = await land(repo.dir, ['show', 'j-20000101-0001']);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('j-20000101-0001');
    // An upper-case or slashed name is a branch name (lib/queue/lookup.ts): one without jobs is not found.
    for (const name of ['J-UPPER', 'a/b']) {
      const branch = await land(repo.dir, ['show', name]);
      expect(branch.code, name).toBe(4);
      expect(errorLines(branch.stderr)[0], name).toContain(`no job or branch with jobs named "${name}"`);
    }

    // Nothing was written for any of them: no file in the state folder (only its empty layout),
    // nothing new anywhere else in .git.
    const gitDir = dirname(stateDir(repo));
    const files = walk(stateDir(repo)).filter((path) => statSync(join(stateDir(repo), path)).isFile());
    expect(files).toEqual([]);
    expect(
      walk(gitDir)
        .filter((path) => !path.startsWith('land'))
        .sort(),
    ).toEqual(before.filter((path) => !path.startsWith('land')).sort());
  });
});
