// cancel, retry, status order, window and the program's own help and usage errors, end to end.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyChanges } from '../../lib/queue/index.js';
import { openStore, type JobReason } from '../../lib/store/index.js';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';
import { BASIC_POLICY, errorLines, journal, readJobFile, stateDir } from '../helpers/state.js';
import { submitInProcess } from '../helpers/drainHarness.js';

afterAll(() => cleanupTempDirs());

/** Submitted in this process (`land submit` has its own tests): cancel, retry and status are under test here. */
async function submit(dir: string, branch: string, opts: { target?: string; urgent?: boolean } = {}): Promise<string> {
  const [id] = await submitInProcess(dir, [branch], opts);
  return id as string;
}

describe('land cancel and land retry', () => {
  it('cancels a queued job once, refuses a second cancel, and retries only a failed or canceled job', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    repo.branch('to-cancel', { 'c.txt': 'c\n' });
    repo.branch('to-fail', { 'f.txt': 'f\n' });
    const [cancelId, failId] = await Promise.all([submit(repo.dir, 'to-cancel'), submit(repo.dir, 'to-fail')]);

    const canceled = await land(repo.dir, ['cancel', cancelId, '--json']);
    expect(canceled.code, canceled.stderr).toBe(0);
    expect(canceled.json().outcome).toBe('canceled');
    const record = readJobFile(repo, cancelId);
    expect(record.state).toBe('canceled');
    expect(record.timestamps.canceled).toEqual(expect.any(String));
    expect(journal(repo).filter((e) => e.job === cancelId && e.event === 'canceled')).toMatchObject([{ from: 'queued', to: 'canceled' }]);

    const twice = await land(repo.dir, ['cancel', cancelId]);
    expect(twice.code).toBe(5);
    expect(errorLines(twice.stderr)[0]).toContain('already canceled');
    expect(readJobFile(repo, cancelId).state).toBe('canceled');

    // retry of a job that has not failed (here: queued) is refused.
    const refused = await land(repo.dir, ['retry', failId]);
    expect(refused.code).toBe(5);
    expect(errorLines(refused.stderr)[0]).toContain('only a failed or canceled job can be retried');
    expect(readJobFile(repo, failId).state).toBe('queued');

    // Fail the job the way a drainer would: queued -> in_progress -> failed, through the store API.
    const store = await openStore(repo.dir);
    await applyChanges(store, [{ id: failId, to: 'in_progress', from: ['queued'], event: 'train_started' }]);
    // A free-text reason, as a record written by an earlier version may hold (this version writes a JobReason): it is kept and shown.
    const reason = 'gate test failed' as JobReason;
    await applyChanges(store, [{ id: failId, to: 'failed', from: ['in_progress'], event: 'failed', patch: { reason, verdict: 'FAIL' } }]);
    expect(readJobFile(repo, failId)).toMatchObject({ state: 'failed', reason: 'gate test failed' });

    const retried = await land(repo.dir, ['retry', failId, '--json']);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.json()).toMatchObject({
      outcome: 'requeued',
      job: { id: failId, state: 'queued' },
      previous: { state: 'failed', reason: 'gate test failed' },
    });
    expect(readJobFile(repo, failId)).toMatchObject({ state: 'queued', reason: null, verdict: null });
    expect(journal(repo).filter((e) => e.job === failId && e.event === 'retried')).toMatchObject([
      { from: 'failed', to: 'queued', detail: { previousReason: 'gate test failed' } },
    ]);
    const again = await land(repo.dir, ['retry', failId]);
    expect(again.code).toBe(5);
  });
});

async function failJob(dir: string, id: string, reason: JobReason = 'gate'): Promise<void> {
  // The way a drainer fails a job: queued -> in_progress -> failed, through the store API.
  const store = await openStore(dir);
  await applyChanges(store, [{ id, to: 'in_progress', from: ['queued'], event: 'train_started' }]);
  await applyChanges(store, [{ id, to: 'failed', from: ['in_progress'], event: 'failed', patch: { reason, verdict: 'FAIL' } }]);
}

describe('land retry: several ids, --all-failed', () => {
  it('checks every id before changing any, requeues failed and canceled jobs, and --all-failed keeps to its target', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    // A second target with its own policy, and a job on it.
    repo.git('checkout', '-q', '-b', 'other');
    repo.policy({ ...BASIC_POLICY, target: 'other' });
    repo.git('checkout', '-q', 'main');
    for (const branch of ['f1', 'f2', 'c1', 'q1', 's', 'o1']) repo.branch(branch, { [`${branch}.txt`]: `${branch}\n` });
    const [f1, f2, c1, q1, s1] = await submitInProcess(repo.dir, ['f1', 'f2', 'c1', 'q1', 's']);
    const o1 = await submit(repo.dir, 'o1', { target: 'other' });
    expect((await land(repo.dir, ['cancel', c1 as string])).code).toBe(0);
    for (const id of [f1, f2, s1, o1]) await failJob(repo.dir, id as string);
    // Branch s moves on and is submitted again: its failed job s1 is superseded.
    repo.git('checkout', '-q', 's');
    repo.commit('s again', { 's2.txt': 's2\n' });
    repo.git('checkout', '-q', 'main');
    const s2 = await submit(repo.dir, 's');

    const [unknown, notFailed, noId, both] = await Promise.all([
      land(repo.dir, ['retry', f1 as string, 'j-19990101-0001']),
      land(repo.dir, ['retry', f1 as string, q1 as string]),
      land(repo.dir, ['retry']),
      land(repo.dir, ['retry', f1 as string, '--all-failed']),
    ]);
    expect(unknown.code).toBe(4);
    expect(errorLines(unknown.stderr)).toEqual(['land: no job j-19990101-0001; none of the jobs was requeued']);
    expect(notFailed.code).toBe(5);
    expect(errorLines(notFailed.stderr)).toEqual([`land: job ${q1} is queued; only a failed or canceled job can be retried; none of the jobs was requeued`]);
    // No id: the checked-out branch's latest job (lib/queue/lookup.ts); main has none.
    expect(noId.code).toBe(4);
    expect(errorLines(noId.stderr)[0]).toContain('the checked-out branch "main" has no job');
    expect(both.code).toBe(2);
    // All or nothing: f1, named in every refused call, is still failed and no retry was journaled.
    expect(readJobFile(repo, f1 as string).state).toBe('failed');
    expect(journal(repo).filter((e) => e.event === 'retried')).toEqual([]);

    const several = await land(repo.dir, ['retry', f1 as string, c1 as string, '--json']);
    expect(several.code, several.stderr).toBe(0);
    expect(several.lines()).toMatchObject([
      { outcome: 'requeued', job: { id: f1, state: 'queued', regate: true }, previous: { state: 'failed', reason: 'gate' } },
      { outcome: 'requeued', job: { id: c1, state: 'queued', regate: true }, previous: { state: 'canceled' } },
    ]);
    expect(
      journal(repo)
        .filter((e) => e.event === 'retried')
        .map((e) => [e.job, e.from, e.to]),
    ).toEqual([
      [f1, 'failed', 'queued'],
      [c1, 'canceled', 'queued'],
    ]);

    // --all-failed on main: f2 requeued, s1 skipped (its branch has s2 queued), o1 left alone.
    const all = await land(repo.dir, ['retry', '--all-failed', '--json']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.lines()).toMatchObject([
      { outcome: 'requeued', job: { id: f2, state: 'queued' } },
      { outcome: 'skipped', job: { id: s1, state: 'failed' }, why: `branch already has job ${s2} queued` },
    ]);
    expect(readJobFile(repo, o1 as string).state).toBe('failed');

    const other = await land(repo.dir, ['retry', '--all-failed', '--target', 'other']);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).toMatch(new RegExp(`^requeued ${o1} \\(was failed: gate; the next train gates it again\\): o1 at [0-9a-f]{12}\n$`));
    const none = await land(repo.dir, ['retry', '--all-failed', '--target', 'other']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe('no failed jobs on other; nothing to retry\n');
  });
});

describe('land status (human output)', () => {
  it('lists queued jobs in landing order with positions, urgent first, canceled ones left out', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    for (const branch of ['alpha', 'bravo', "char'lie;$(x)", 'delta']) repo.branch(branch, { [`${branch}.txt`]: `${branch}\n` });
    const alpha = await submit(repo.dir, 'alpha');
    const bravo = await submit(repo.dir, 'bravo');
    const charlie = await submit(repo.dir, "char'lie;$(x)");
    const delta = await submit(repo.dir, 'delta', { urgent: true });
    const cancel = await land(repo.dir, ['cancel', bravo]);
    expect(cancel.code, cancel.stderr).toBe(0);

    const result = await land(repo.dir, ['status']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n').filter((line) => line !== '');
    expect(lines[0]).toMatch(/^window \d+ \(max 8\); 3 queued, 0 running$/);
    expect(lines[1]).toMatch(/^#\s+id\s+state\s+branch\s+tip/);
    expect(lines.at(-1)).toMatch(/^eta: /); // what the estimates rest on, under the table
    const rows = lines.slice(2, -1).map((line) => line.split(/\s+/));
    expect(rows.map((cells) => cells[0])).toEqual(['1', '2', '3']);
    expect(rows.map((cells) => cells[1])).toEqual([delta, alpha, charlie]);
    // A name with shell characters is shown quoted, never raw.
    expect(rows.map((cells) => cells[3])).toEqual(['delta', 'alpha', JSON.stringify("char'lie;$(x)")]);
    expect(rows[0]?.[4]).toBe(repo.tip('delta').slice(0, 12));
    expect(result.stdout).not.toContain(bravo);
  });
});

describe('land window', () => {
  it('sets the window with a history entry and clamps it to batch.max', async () => {
    const repo = makeRepo({ policy: { ...BASIC_POLICY, batch: { max: 5 } } });
    const windowFile = join(stateDir(repo), 'window.json');

    const set = await land(repo.dir, ['window', '--set', '3']);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(readFileSync(windowFile, 'utf8')).size).toBe(3);
    const shown = await land(repo.dir, ['window', '--json']);
    expect(shown.code).toBe(0);
    const view = shown.json();
    expect(view).toMatchObject({ size: 3, max: 5, persisted: 3 });
    expect(view.history.at(-1)).toMatchObject({ event: 'set', before: 5, after: 3 });

    const big = await land(repo.dir, ['window', '--set', '50', '--json']);
    expect(big.code, big.stderr).toBe(0);
    expect(big.json()).toMatchObject({ size: 5, max: 5 });
    expect(JSON.parse(readFileSync(windowFile, 'utf8')).size).toBe(5);
    expect(big.json().history).toHaveLength(2);

    // A smaller batch.max committed on main clamps the persisted window when it is read.
    repo.policy({ ...BASIC_POLICY, batch: { max: 2 } });
    const clamped = await land(repo.dir, ['window', '--json']);
    expect(clamped.json()).toMatchObject({ size: 2, max: 2, persisted: 5 });

    const refused = await land(repo.dir, ['window', '--set', '0']);
    expect(refused.code).toBe(2);
    expect(JSON.parse(readFileSync(windowFile, 'utf8')).size).toBe(5);
  });
});

describe('land: help and usage errors', () => {
  it('prints help listing the commands (exit 0); unknown commands and options exit 2', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    const help = await land(repo.dir, ['--help']);
    expect(help.code).toBe(0);
    for (const command of ['init', 'config', 'submit', 'status', 'show', 'cancel', 'retry', 'window']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    const results = await Promise.all([land(repo.dir, ['frobnicate']), land(repo.dir, ['status', '--frobnicate'])]);
    for (const result of results) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/error: /);
    }
  });
});
