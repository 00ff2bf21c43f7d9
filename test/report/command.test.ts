// `land report` as a user runs it where nothing happened yet, and its errors: one end-to-end test
// (the built CLI on a tiny real repository where land never ran). The report of a real history,
// opened in a browser, is test/report/browser.test.ts.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';

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
});
