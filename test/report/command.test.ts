// `land report` as a user runs it where nothing happened yet, and its errors: one end-to-end test
// (the built CLI on a tiny real repository where land never ran). The report of a real history,
// opened in a browser, is test/report/browser.test.ts.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';
import { BASIC_POLICY, jobsDir } from '../helpers/state.js';
import { submitInProcess } from '../helpers/drainHarness.js';

afterAll(cleanupTempDirs);

describe('land report', () => {
  it('writes a page that says "no history yet" where land never ran; refuses a missing or unwritable --html (exit 2, one line)', async () => {
    const repo = makeRepo();
    const text = await land(repo.dir, ['report', '--html', 'out/report.html']);
    expect(text.code, text.stderr).toBe(0);
    const file = join(repo.dir, 'out', 'report.html');
    expect(text.stdout.split('\n')[0]).toBe(file);
    expect(text.stdout).toContain('no history yet');
    const html = readFileSync(file, 'utf8');
    expect(html).toContain('no history yet');
    expect((html.match(/>no data</g) ?? []).length).toBe(4); // the four charts; the table says "no data: no job has failed"
    const json = await land(repo.dir, ['report', '--html', file, '--since', '7d', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.json()).toEqual({
      file,
      empty: true,
      since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      jobs: 0,
      trains: 0,
      charts: { window: 0, 'time-to-land': 0, 'train-outcomes': 0, 'gate-durations': 0, 'failed-jobs': 0 },
    });

    const missing = await land(repo.dir, ['report', '--json']);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr.split('\n')[0]).toBe('land: land report: --html <file> is required (where to write the report)');

    writeFileSync(join(repo.dir, 'a-file'), 'x');
    const unwritable = await land(repo.dir, ['report', '--html', 'a-file/report.html']);
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr.split('\n')[0]).toMatch(
      /^land: --html: cannot write .*a-file\/report\.html \(a part of the path is a file, not a folder: E[A-Z]+\)$/,
    );
    expect(existsSync(join(repo.dir, 'a-file', 'report.html'))).toBe(false);
    const folder = await land(repo.dir, ['report', '--html', 'out']);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain('is a folder');
  });

  it('refuses an --html inside the git folder (a job record, .git/HEAD): exit 2, one line, nothing changed', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    repo.branch('feature', { 'f.txt': 'f\n' });
    const [id] = (await submitInProcess(repo.dir, ['feature'])) as [string]; // `land report` is under test here
    const record = join(jobsDir(repo), `${id}.json`);
    const head = join(repo.dir, '.git', 'HEAD');
    const before = { record: readFileSync(record, 'utf8'), head: readFileSync(head, 'utf8') };

    for (const path of [record, '.git/HEAD']) {
      const refused = await land(repo.dir, ['report', '--html', path]);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr.trim().split('\n')).toEqual([
        `land: --html ${path === record ? record : head} is inside the repository's git folder (${join(repo.dir, '.git')}); name a path outside it`,
      ]);
    }
    expect({ record: readFileSync(record, 'utf8'), head: readFileSync(head, 'utf8') }).toEqual(before);
    const shown = await land(repo.dir, ['show', id]);
    expect(shown.code, shown.stderr).toBe(0);

    const written = await land(repo.dir, ['report', '--html', 'report.html']);
    expect(written.code, written.stderr).toBe(0);
    expect(readFileSync(join(repo.dir, 'report.html'), 'utf8')).toContain('<svg');
  });
});
