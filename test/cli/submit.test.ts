// `land submit` end to end: concurrent submits lose nothing, idempotence, tip updates, a failed or
// canceled job queued again, refusals, and branch names full of shell characters that must never reach a shell.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyChanges } from '../../lib/queue/index.js';
import { openStore } from '../../lib/store/index.js';
import { land, startLand } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo, tempDir } from '../helpers/repo.js';
import { waitUntil } from '../helpers/wait.js';
import { BASIC_POLICY, errorLines, FAIL_AT_ONCE, journal, jobDirEntries, jobFiles, readJobFile, walk } from '../helpers/state.js';

afterAll(() => cleanupTempDirs());

describe('land submit: 20 processes at once', () => {
  it('leaves exactly 20 jobs with distinct ids, 20 records and 20 journal lines', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    const branches = Array.from({ length: 20 }, (_, i) => `feature-${String(i).padStart(2, '0')}`);
    const tips = new Map<string, string>();
    for (const branch of branches) tips.set(branch, repo.branch(branch, { [`${branch}.txt`]: `${branch}\n` }));

    const results = await Promise.all(branches.map((branch) => land(repo.dir, ['submit', branch, '--json'])));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const outcomes = results.map((result) => result.json());
    expect(outcomes.every((o) => o.outcome === 'created')).toBe(true);

    const ids = outcomes.map((o) => o.job.id as string);
    expect(new Set(ids).size).toBe(20);

    // The files on disk: 20 records, no temp file, each the branch at its tip.
    const files = jobFiles(repo);
    expect(files).toHaveLength(20);
    expect(jobDirEntries(repo).filter((name) => name.includes('.tmp-'))).toEqual([]);
    expect(files.map((f) => f.slice(0, -5)).sort()).toEqual([...ids].sort());
    const records = ids.map((id) => readJobFile(repo, id));
    expect(records.map((r) => r.branch).sort()).toEqual(branches);
    for (const record of records) {
      expect(record.state).toBe('queued');
      expect(record.tip).toBe(tips.get(record.branch));
    }

    const submitted = journal(repo).filter((entry) => entry.event === 'submitted');
    expect(submitted).toHaveLength(20);
    expect(submitted.map((entry) => entry.job).sort()).toEqual([...ids].sort());
  }, 120_000); // 20 node processes on two cores: about 10 s alone, longer on a busy machine
});

describe('land submit: idempotence, tip updates and refusals', () => {
  it('returns the same job for the same tip, and moves it to a new tip of its branch', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    const oldTip = repo.branch('topic', { 'a.txt': 'a\n' });
    const first = await land(repo.dir, ['submit', 'topic', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json().outcome).toBe('created');
    const id = first.json().job.id;

    const again = await land(repo.dir, ['submit', 'topic', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json().outcome).toBe('existing');
    expect(again.json().job.id).toBe(id);
    expect(jobFiles(repo)).toEqual([`${id}.json`]);
    expect(readJobFile(repo, id).tip).toBe(oldTip);
    expect(journal(repo).map((entry) => entry.event)).toEqual(['submitted']);

    repo.git('checkout', '-q', 'topic');
    const newTip = repo.commit('second change', { 'b.txt': 'b\n' });
    repo.git('checkout', '-q', 'main');
    expect(newTip).not.toBe(oldTip);

    const updated = await land(repo.dir, ['submit', 'topic', '--json']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.json().outcome).toBe('tip_updated');
    expect(updated.json().job.id).toBe(id);
    expect(jobFiles(repo)).toEqual([`${id}.json`]);
    const record = readJobFile(repo, id);
    expect(record.tip).toBe(newTip);
    expect(record.state).toBe('queued');
    expect(journal(repo).map((entry) => entry.event)).toEqual(['submitted', 'tip_updated']);
    expect(journal(repo)[1]).toMatchObject({ job: id, from: 'queued', to: 'queued', detail: { from: oldTip, to: newTip } });
  });

  it('refuses a missing branch (4), the target (5), a contained tip (5), a space (2) and a shorthand (2)', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    repo.git('branch', 'merged-already', 'main');
    repo.branch('previous', { 'p.txt': 'p\n' }); // leaves @{-1} naming "previous"
    const mainTip = repo.tip('main');

    const [missing, target, contained, spaced, shorthand] = await Promise.all([
      land(repo.dir, ['submit', 'no-such-branch']),
      land(repo.dir, ['submit', 'main']),
      land(repo.dir, ['submit', 'merged-already']),
      land(repo.dir, ['submit', 'has space']),
      land(repo.dir, ['submit', '@{-1}']),
    ]);

    expect(missing.code).toBe(4);
    expect(errorLines(missing.stderr)).toHaveLength(1);
    expect(errorLines(missing.stderr)[0]).toMatch(/"no-such-branch" does not exist/);

    expect(target.code).toBe(5);
    expect(errorLines(target.stderr)).toHaveLength(1);
    expect(errorLines(target.stderr)[0]).toMatch(/target branch "main"/);

    expect(contained.code).toBe(5);
    expect(errorLines(contained.stderr)).toHaveLength(1);
    expect(errorLines(contained.stderr)[0]).toMatch(/"merged-already" .* already contained in main/);

    expect(spaced.code).toBe(2);
    expect(errorLines(spaced.stderr)).toHaveLength(1);
    expect(errorLines(spaced.stderr)[0]).toContain('"has space"');

    expect(shorthand.code).toBe(2);
    expect(errorLines(shorthand.stderr)[0]).toContain('"@{-1}"');

    // Nothing was queued or journaled by a refusal, and the target did not move.
    expect(jobFiles(repo)).toEqual([]);
    expect(journal(repo)).toEqual([]);
    expect(repo.tip('main')).toBe(mainTip);
  });
});

describe('land submit: branch names with shell characters', () => {
  const NAME = `q'"s;$(touch\${IFS}PWNED)` + '`touch${IFS}PWNED2`';

  it('queues and shows the exact name and executes nothing from it', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    const tip = repo.branch(NAME, { 'weird.txt': 'w\n' });
    expect(repo.git('rev-parse', '--verify', `refs/heads/${NAME}`)).toBe(tip);

    const submitted = await land(repo.dir, ['submit', NAME, '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const id = submitted.json().job.id;
    expect(readJobFile(repo, id)).toMatchObject({ branch: NAME, tip });

    const status = await land(repo.dir, ['status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json().jobs).toHaveLength(1);
    expect(status.json().jobs[0]).toMatchObject({ id, branch: NAME, tip });

    const show = await land(repo.dir, ['show', id, '--json']);
    expect(show.code, show.stderr).toBe(0);
    expect(show.json().branch).toBe(NAME);

    const pwned = walk(repo.dir).filter((path) => /(^|\/)PWNED2?$/.test(path));
    expect(pwned).toEqual([]);
    expect(existsSync(join(process.cwd(), 'PWNED'))).toBe(false);
    expect(existsSync(join(process.cwd(), 'PWNED2'))).toBe(false);
  });
});

describe('land submit: a failed or canceled job of the same branch at the same tip', () => {
  // A gate that fails a tree holding b4.txt while its flag file exists: a flaky failure the
  // developer then fixes outside the branch, so the same tip (the same tree) must be gated again
  // to land. main itself (no b4.txt) passes, so the drainer's check of the target finds it green.
  function flakyRepo() {
    const scratch = tempDir('land-flaky-');
    const flag = join(scratch, 'fail');
    const counter = join(scratch, 'runs');
    writeFileSync(flag, '');
    const repo = makeRepo({
      policy: {
        target: 'main',
        ...FAIL_AT_ONCE,
        gates: [
          {
            name: 'test',
            run: ['sh', '-c', 'echo run >> "$GATE_COUNTER"; test ! -e "$GATE_FLAG" || test ! -e b4.txt'],
            env: { GATE_FLAG: flag, GATE_COUNTER: counter },
          },
        ],
      },
    });
    const gateRuns = () => (existsSync(counter) ? readFileSync(counter, 'utf8').split('\n').filter(Boolean).length : 0);
    return { repo, flag, gateRuns };
  }

  it('requeues a failed job as the same job, gates it again past the cached FAIL, and submit --wait waits for it', async () => {
    const { repo, flag, gateRuns } = flakyRepo();
    const tip = repo.branch('b4', { 'b4.txt': 'b4\n' });
    const first = await land(repo.dir, ['submit', 'b4', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const id = first.json().job.id;
    const failedRun = await land(repo.dir, ['run']);
    expect(failedRun.code, failedRun.stderr).toBe(0);
    expect(readJobFile(repo, id)).toMatchObject({ state: 'failed', verdict: 'FAIL' });
    expect(gateRuns()).toBe(2); // the job's train, then main itself (green: the job is the culprit)

    // Before the fix: "already queued as ... (failed)", exit 0, nothing queued.
    const human = await land(repo.dir, ['submit', 'b4']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout.trim()).toBe(`requeued ${id} (was failed: gate; the next train gates it again): b4 at ${tip.slice(0, 12)}`);
    expect(human.stdout).not.toContain('already queued');
    expect(jobFiles(repo)).toEqual([`${id}.json`]);
    const record = readJobFile(repo, id);
    expect(record).toMatchObject({ state: 'queued', tip, reason: null, verdict: null, regate: true, attempts: 0 });
    expect(record.timestamps.failed).toBeUndefined();
    expect(journal(repo).filter((e) => e.job === id && e.event === 'resubmitted')).toMatchObject([
      { kind: 'transition', from: 'failed', to: 'queued', detail: { previousState: 'failed', previousReason: 'gate', tip } },
    ]);

    // Queued now: submitting again is idempotent and says so truthfully.
    const again = await land(repo.dir, ['submit', 'b4', '--json']);
    expect(again.json()).toMatchObject({ outcome: 'existing', job: { id, state: 'queued' } });

    // Cancel it, then resubmit with --wait: requeued, and the wait lasts until it lands.
    expect((await land(repo.dir, ['cancel', id])).code).toBe(0);
    rmSync(flag);
    const waiting = startLand(repo.dir, ['submit', 'b4', '--wait', '--json']);
    await waitUntil('the resubmit', () => readJobFile(repo, id).state === 'queued');
    const drained = await land(repo.dir, ['run']);
    expect(drained.code, drained.stderr).toBe(0);
    const waited = await waiting.done;
    expect(waited.code, waited.stderr).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({ outcome: 'requeued', previous: { state: 'canceled' }, job: { id, state: 'landed' } });
    // The same tree was judged FAIL and cached; the gate ran again instead of reusing it.
    expect(gateRuns()).toBe(3);
    expect(repo.git('merge-base', '--is-ancestor', tip, 'main')).toBe('');
  }, 60_000);

  it('requeues a canceled job the same way, and never says "already queued" for a job riding a train', async () => {
    const repo = makeRepo({ policy: BASIC_POLICY });
    const tip = repo.branch('topic', { 't.txt': 't\n' });
    const id = (await land(repo.dir, ['submit', 'topic', '--json'])).json().job.id;
    expect((await land(repo.dir, ['cancel', id])).code).toBe(0);

    const requeued = await land(repo.dir, ['submit', 'topic', '--json']);
    expect(requeued.code, requeued.stderr).toBe(0);
    expect(requeued.json()).toMatchObject({
      outcome: 'requeued',
      previous: { state: 'canceled' },
      job: { id, state: 'queued', regate: true, stopRequest: null },
    });
    expect(jobFiles(repo)).toEqual([`${id}.json`]);
    expect(journal(repo).map((e) => [e.event, e.from, e.to])).toEqual([
      ['submitted', null, 'queued'],
      ['canceled', 'queued', 'canceled'],
      ['resubmitted', 'canceled', 'queued'],
    ]);

    // Riding a train (moved the way a drainer would): not "already queued".
    const store = await openStore(repo.dir);
    await applyChanges(store, [{ id, to: 'in_progress', from: ['queued'], event: 'train_started' }]);
    const riding = await land(repo.dir, ['submit', 'topic']);
    expect(riding.code, riding.stderr).toBe(0);
    expect(riding.stdout.trim()).toBe(`already riding a train as ${id}: topic at ${tip.slice(0, 12)}`);
    expect(readJobFile(repo, id).state).toBe('in_progress');
  });
});
