// The test helper `land()` runs commands that start no gate in the test's own process, through the
// main(argv) that bin/land.js calls (test/helpers/cli.ts). This proves that shortcut changes
// nothing a test can see: the same command lines, run both ways on the same repository, print the
// same bytes on stdout and stderr and end with the same exit status, and the files they write are
// the same.
import { afterAll, describe, expect, it } from 'vitest';
import { land, landProcess } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';
import { BASIC_POLICY, readJobFile } from '../helpers/state.js';

afterAll(() => cleanupTempDirs());

const READS: readonly (readonly string[])[] = [
  ['status'],
  ['status', '--json'],
  ['show', 'feature', '--json'],
  ['window', '--json'],
  ['config', '--json'],
  ['show', 'j-00000000-9999'],
  ['submit', 'no-such-branch'],
  ['sumbit', 'feature'],
  ['submit', '--title'],
  ['submit', '--help'],
  ['--help'],
  ['--target', 'nope', 'status'],
];

/**
 * The human status table's age column counts seconds, and the two runs are a moment apart: an age
 * ("9s", then "10s") and the column's padding may differ.
 */
const timeless = (text: string) => text.replace(/\b\d+[smhd]\b/g, '<age>').replace(/ {2,}/g, '  ');

describe('the in-process CLI of the tests', () => {
  it('prints what the built CLI prints and exits as it does, for reads, errors, usage and help', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    repo.branch('feature', { 'f.txt': 'f\n' });
    const submitted = await landProcess(repo.dir, ['submit', 'feature', '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    for (const args of READS) {
      const inProcess = await land(repo.dir, [...args]);
      const child = await landProcess(repo.dir, [...args]);
      const what = `land ${args.join(' ')}`;
      expect({ code: inProcess.code, stdout: timeless(inProcess.stdout), stderr: inProcess.stderr }, what).toEqual({
        code: child.code,
        stdout: timeless(child.stdout),
        stderr: child.stderr,
      });
    }
  });

  it('writes the same job record as the built CLI (a resubmission answers alike both ways)', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    repo.branch('one', { 'one.txt': '1\n' });
    const first = await land(repo.dir, ['submit', 'one', '--title', 'the first', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const again = await landProcess(repo.dir, ['submit', 'one', '--json']);
    const againInProcess = await land(repo.dir, ['submit', 'one', '--json']);
    expect(again.json()).toEqual(againInProcess.json());
    expect(again.json().outcome).toBe('existing');
    const record = readJobFile(repo, first.json().job.id);
    expect(record).toMatchObject({ branch: 'one', title: 'the first', state: 'queued' });
    // Nothing leaks out of the in-process run: the test process's exit status and environment.
    expect(process.exitCode ?? 0).toBe(0);
    expect(process.env.NO_COLOR).toBeUndefined();
  });

  it('land run: the same exit status and outcome both ways (a landing; a failed job with --fail-on-failed)', async () => {
    const outcome = async (run: typeof land, gate: string) => {
      const repo = makeRepo({ policy: { target: 'main', gates: [{ name: 'test', run: ['sh', '-c', gate] }], sandbox: { mode: 'off' } } });
      repo.branch('feature', { 'f.txt': 'f\n' });
      expect((await land(repo.dir, ['submit', 'feature'])).code).toBe(0);
      const result = await run(repo.dir, ['run', '--json', '--fail-on-failed']);
      const summary = result.lines().at(-1);
      return { code: result.code, landed: summary.landed.length, failed: summary.failed.length };
    };
    // The feature breaks the gate; main passes it (else the drain stops for a red target, exit 10).
    const breaks = 'test ! -f f.txt';
    for (const gate of ['true', breaks]) {
      expect(await outcome(land, gate), gate).toEqual(await outcome(landProcess, gate));
    }
    expect(await outcome(land, breaks)).toEqual({ code: 15, landed: 0, failed: 1 });
    expect(await outcome(land, 'true')).toEqual({ code: 0, landed: 1, failed: 0 });
  });
});
