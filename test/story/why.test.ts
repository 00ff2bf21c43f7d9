// `land why`, `land log` and `land repro` after real drains on real repositories: a batch of four
// with one culprit (bisected), and a conflict skip. The drains run in this process; `land why` runs
// through the CLI once per behaviour (the culprit's story, a torn journal line's note, an unknown
// id), and the other stories are read and rendered in this process (test/helpers/story.ts).
import { appendFileSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, assert, beforeAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, tempDir, tempDirs } from '../helpers/repo.js';
import { jobsById, makeQueueRepo, submitBranches, type QueueRepo } from '../helpers/queue.js';
import { journal, readJobFile, stateDir } from '../helpers/state.js';
import { runDrain, setWindowInProcess, submitInProcess } from '../helpers/drainHarness.js';
import { whyInProcess } from '../helpers/story.js';

afterAll(cleanupTempDirs);

function metricRows(repo: QueueRepo): any[] {
  const path = join(stateDir(repo), 'metrics.jsonl');
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

function trainsRidden(repo: QueueRepo, id: string): string[] {
  return journal(repo)
    .filter((e) => e.job === id && e.event === 'train_started')
    .map((e) => {
      const train = e.detail.train;
      if (typeof train !== 'string') throw new Error(`a train_started entry without its train: ${JSON.stringify(e)}`);
      return train;
    });
}

describe('the story of a batch of four with one culprit', () => {
  let repo: QueueRepo;
  let ids: string[];
  let culprit: string;
  let forgive: string;

  beforeAll(async () => {
    forgive = join(tempDir('land-story-'), 'forgive');
    repo = makeQueueRepo({ gate: { script: 'chatty.sh', env: { GATE_FORGIVE: forgive } } });
    ids = await submitBranches(repo, 4, [3]);
    culprit = ids[2] as string;
    // The drain in this process (test/helpers/drainHarness.ts): the story, not the drain, is under test here.
    await setWindowInProcess(repo.dir, 4, 8);
    expect((await runDrain(repo.dir)).summary.stopped).toBeNull();
    const jobs = await jobsById(repo);
    expect(jobs.get(culprit).state).toBe('failed');
  });

  it('why <culprit> names its trains, the bisection, the failing gate with its exit status and its output, once', async () => {
    const why = await land(repo.dir, ['why', culprit]);
    expect(why.code, why.stderr).toBe(0);
    const rode = trainsRidden(repo, culprit);
    expect(rode.length).toBeGreaterThanOrEqual(2);
    for (const train of rode) expect(why.stdout).toContain(`rode train ${train}`);
    expect(why.stdout).toMatch(/submitted by test@land\.invalid: b3 at [0-9a-f]{12}/);
    expect(why.stdout).toContain('members: b1, b2, b3 (this job), b4');
    expect(why.stdout).toMatch(/verdict FAIL: gate test: exit 3 after [0-9.]+s/);
    expect(why.stdout).toContain('| chatty line 20');
    expect(why.stdout).toContain('| chatty line 2\n');
    expect(why.stdout).not.toMatch(/\| chatty line 1$/m);
    // The same output in every train the culprit failed: shown once, under the first, naming the others.
    expect(why.stdout.split('| CHATTY FAILS ON culprit-3')).toHaveLength(2);
    expect(why.stdout).toContain(`excerpt of gate test's output (the same in train ${rode.slice(1).join(', ')}):`);
    expect(why.stdout.split(`the same output as train ${rode[0]} (above)`)).toHaveLength(rode.length);
    expect(why.stdout).toMatch(/bisection of batch b-/);
    // The bisection's round, not a count of the job's trains ("attempt 3" read as a third try).
    expect(why.stdout).toMatch(/rode train \S+ \(batch \S+, round 1\)/);
    expect(why.stdout).toMatch(/^ +b-\S+ +round 1 +FAIL /m);
    expect(why.stdout).toMatch(/FAIL\s+b3 \(this job\) {2}<- isolated/);
    expect(why.stdout).toMatch(/\nnow: failed \(gate\): gate test: exit 3/);
  });

  it('why --json: the events in order, each verdict with its failing gate and output, and the bisection steps', async () => {
    const story = (await whyInProcess(repo.dir, culprit)).json();
    expect(story.job).toMatchObject({ id: culprit, branch: 'b3', state: 'failed' });
    expect(story.trains).toEqual(trainsRidden(repo, culprit));
    expect(story.skippedJournalLines).toEqual([]);
    const kinds = story.events.map((e: any) => e.kind);
    expect(kinds[0]).toBe('submitted');
    expect(kinds.at(-1)).toBe('now');
    expect(kinds.indexOf('rode')).toBeLessThan(kinds.indexOf('verdict'));
    const verdicts = story.events.filter((e: any) => e.kind === 'verdict');
    expect(verdicts.length).toBe(story.trains.length);
    for (const verdict of verdicts) {
      expect(verdict).toMatchObject({ verdict: 'FAIL', reason: 'gate', failing: { name: 'test', status: 'exit 3' } });
      expect(verdict.output).toHaveLength(20);
      expect(verdict.output.at(-1)).toBe('CHATTY FAILS ON culprit-3');
    }
    expect(verdicts[0].sameOutputIn).toEqual(verdicts.slice(1).map((v: any) => v.train));
    for (const verdict of verdicts.slice(1)) expect(verdict.sameOutputAs).toBe(verdicts[0].train);
    // The last verdict is the culprit's own train, alone; its log is that train's.
    const last = verdicts.at(-1);
    expect(last.train).toBe(story.trains.at(-1));
    expect(last.log).toBe(readJobFile(repo, culprit).gateLog);
    const bisection = story.events.find((e: any) => e.kind === 'bisection');
    const rows = metricRows(repo).filter((row) => row.batch === bisection.batch);
    expect(bisection.steps.map((s: any) => s.train)).toEqual(rows.map((row) => row.train));
    expect(bisection.steps[0]).toMatchObject({ attempt: 1, verdict: 'FAIL', rode: true, landed: false });
    expect(bisection.steps[0].members.map((m: any) => m.branch)).toEqual(['b1', 'b2', 'b3', 'b4']);
    const isolated = bisection.steps.find((s: any) => s.train === last.train);
    expect(isolated).toMatchObject({ verdict: 'FAIL', members: [{ id: culprit, branch: 'b3' }] });
    const failed = story.events.find((e: any) => e.kind === 'failed');
    expect(failed).toMatchObject({ reason: 'gate', code: 'gate', train: last.train });
    expect(failed.message).toMatch(/gate test: exit 3/);
    expect(story.events.at(-1)).toMatchObject({ kind: 'now', state: 'failed', reason: 'gate', train: last.train });
  });

  it('why of a landed member says it landed, as which commit and via which train', async () => {
    const id = ids[0] as string;
    const record = readJobFile(repo, id);
    assert.exists(record.train, 'a landed job names its train commit');
    const landedRow = metricRows(repo).find((row) => row.landed && row.members.includes(id));
    const why = await whyInProcess(repo.dir, id);
    expect(why.stdout).toContain(`landed as ${record.train.slice(0, 12)} via merge in train ${landedRow.train}`);
    expect(why.stdout).toContain('its train failed and was split; this job is in the first half, judged next');
    const story = why.json();
    expect(story.events.at(-1)).toMatchObject({ kind: 'now', state: 'landed', commit: record.train, via: 'merge', train: landedRow.train });
  });

  it('log prints the gate log of the latest train; --train of a train the job did not ride exits 4', async () => {
    const rode = trainsRidden(repo, culprit);
    const log = await land(repo.dir, ['log', culprit]);
    expect(log.code, log.stderr).toBe(0);
    const gateLog = readJobFile(repo, culprit).gateLog;
    assert.exists(gateLog, 'the failed job names its gate log');
    expect(log.stdout).toBe(readFileSync(gateLog, 'utf8'));
    expect(log.stdout).toContain('CHATTY FAILS ON culprit-3');
    const first = await land(repo.dir, ['log', culprit, '--train', rode[0] as string, '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json()).toMatchObject({ job: culprit, train: rode[0], path: join(stateDir(repo), 'logs', `${rode[0]}.log`) });
    expect(first.json().text).toContain('== gate test: exit 3 after');
    const foreign = metricRows(repo).find((row) => !row.members.includes(culprit)).train;
    const refused = await land(repo.dir, ['log', culprit, '--train', foreign]);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain(`did not ride train ${foreign}`);
  });

  it('repro rebuilds the failed train: its tree is the metrics row tree and the record tree', async () => {
    const record = readJobFile(repo, culprit);
    const failedRow = metricRows(repo)
      .filter((row) => row.verdict === 'FAIL' && row.members.includes(culprit))
      .at(-1);
    const repro = await land(repo.dir, ['repro', culprit, '--json']);
    expect(repro.code, repro.stderr).toBe(0);
    const out = repro.json();
    tempDirs.push(out.dir); // removed after the tests even when an expectation fails first
    expect(out).toMatchObject({ job: culprit, train: failedRow.train, base: failedRow.base, treeMatchesTrain: true, treeMatchesRecord: true, run: null });
    expect(out.tree).toBe(failedRow.tree);
    expect(out.tree).toBe(record.tree);
    // The evidence: the folder is a worktree at a commit whose tree is the failed train's.
    expect(repo.git('-C', out.dir, 'rev-parse', 'HEAD^{tree}')).toBe(record.tree);
    expect(repo.git('-C', out.dir, 'rev-parse', 'HEAD^1')).toBe(failedRow.base);
    expect(repo.git('-C', out.dir, 'rev-parse', 'HEAD^2')).toBe(record.tip);
    expect(out.dir.startsWith(stateDir(repo))).toBe(false);
    expect(existsSync(join(out.dir, 'culprit-3'))).toBe(true);
    expect(out.env).toMatchObject({ LAND_BASE: failedRow.base, LAND_JOB: culprit, LAND_MEMBERS: culprit, LAND_TRAIN: failedRow.train, LAND_TIP: out.commit });
    expect(out.gates).toEqual([expect.objectContaining({ name: 'test', argv: ['sh', expect.stringMatching(/chatty\.sh$/)] })]);
    expect(out.remove).toEqual(['git', 'worktree', 'remove', '--force', out.dir]);
    repo.git('worktree', 'remove', '--force', out.dir);
  });

  it('repro rebuilds a train of four through a member that landed later: the same merges in the same order; --dir must be new or empty', async () => {
    const firstRow = metricRows(repo)[0];
    const dir = join(tempDir('land-repro-dir-'), 'here');
    const big = await land(repo.dir, ['repro', ids[0] as string, '--dir', dir]);
    expect(big.code, big.stderr).toBe(0);
    expect(big.stdout).toContain(`rebuilt train ${firstRow.train}`);
    expect(big.stdout).toContain(`remove it: git worktree remove --force ${dir}`);
    expect(repo.git('-C', dir, 'rev-parse', 'HEAD^{tree}')).toBe(firstRow.tree);
    const mergedTips = repo
      .git('-C', dir, 'log', '--first-parent', '--format=%P', `${firstRow.base}..HEAD`)
      .split('\n')
      .reverse()
      .map((p) => p.split(' ')[1]);
    expect(mergedTips).toEqual(firstRow.tips);
    const again = await land(repo.dir, ['repro', ids[0] as string, '--dir', dir]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('is not empty');
    // Inside the git folder, also through a symlink to it and folders not made yet: refused, nothing made there.
    const link = join(tempDir('land-repro-link-'), 'to-git');
    symlinkSync(join(repo.dir, '.git'), link);
    for (const inside of [join(link, 'a', 'b'), '.git/repro']) {
      const refused = await land(repo.dir, ['repro', ids[0] as string, '--dir', inside]);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain("is inside the repository's git folder");
    }
    expect(existsSync(join(repo.dir, '.git', 'a'))).toBe(false);
    expect(existsSync(join(repo.dir, '.git', 'repro'))).toBe(false);
  });

  it('repro --run runs the gates there: exit 5 when the failure reproduces, 0 when it does not', async () => {
    // In folders the test removes afterwards (the default is a new folder in the temp folder).
    const run = await land(repo.dir, ['repro', culprit, '--run', '--dir', join(tempDir('land-repro-run-'), 'fails')]);
    expect(run.code).toBe(5);
    expect(run.stdout).toContain('CHATTY FAILS ON culprit-3');
    expect(run.stderr).toContain('the failure reproduced: gate test: exit 3');
    writeFileSync(forgive, '');
    const passing = await land(repo.dir, ['repro', culprit, '--run', '--json', '--dir', join(tempDir('land-repro-run-'), 'passes')]);
    expect(passing.code, passing.stderr).toBe(0);
    expect(passing.json().run).toMatchObject({ verdict: 'PASS' });
    expect(passing.stderr).toContain('chatty: no culprit');
  });

  it('an unknown id is exit 4 for why, log and repro', async () => {
    for (const command of ['why', 'log', 'repro']) {
      const result = await land(repo.dir, [command, 'j-19990101-0001']);
      expect(result.code, `${command}: ${result.stderr}`).toBe(4);
      expect(result.stderr).toContain('no job j-19990101-0001');
    }
  });
});

describe('the story of a conflict skip, and of a job with no history yet', () => {
  let repo: QueueRepo;
  const ids: string[] = [];

  beforeAll(async () => {
    repo = makeQueueRepo();
    repo.branch('first', { 'shared.txt': 'first\n' });
    repo.branch('second', { 'shared.txt': 'second\n' });
    ids.push(...(await submitInProcess(repo.dir, ['first', 'second'])));
    expect((await runDrain(repo.dir)).summary.stopped).toBeNull();
  });

  it('why of a conflict skip shows the paths, against the train and then against the target', async () => {
    const second = ids[1] as string;
    const why = await whyInProcess(repo.dir, second);
    expect(why.stdout).toMatch(
      /conflict with the members ahead of it in the train \(train b-[^)]+\) in shared\.txt: left out of the train and put back in the queue/,
    );
    expect(why.stdout).toMatch(/conflict with the target \(train b-[^)]+\) in shared\.txt: failed: rebase and submit again/);
    const story = why.json();
    const conflicts = story.events.filter((e: any) => e.kind === 'conflict');
    expect(conflicts).toEqual([
      expect.objectContaining({ against: 'train', paths: ['shared.txt'], outcome: 'requeued' }),
      expect.objectContaining({ against: 'target', paths: ['shared.txt'], outcome: 'failed' }),
    ]);
    // The journal keeps them (not only the record's latest preview).
    const lines = journal(repo).filter((e) => e.job === second && (e.event === 'requeued' || e.event === 'failed'));
    expect(lines.map((e) => e.detail)).toEqual([
      expect.objectContaining({ reason: 'conflict_with_train', against: 'train', paths: ['shared.txt'] }),
      expect.objectContaining({ reason: 'conflict', against: 'target', paths: ['shared.txt'], message: expect.stringContaining('shared.txt') }),
    ]);
  });

  it('repro of a job that never failed a train (failed by conflict, or landed) is exit 4', async () => {
    for (const id of ids) {
      const repro = await land(repo.dir, ['repro', id]);
      expect(repro.code, repro.stderr).toBe(4);
      expect(repro.stderr).toContain(`job ${id} never failed a train`);
    }
  });

  it('a job with no history beyond its submission says so, and where it waits', async () => {
    repo.branch('third', { 'third.txt': 'third\n' });
    const [third] = await submitInProcess(repo.dir, ['third']);
    const why = await whyInProcess(repo.dir, third as string);
    expect(why.stdout).toContain('no history beyond its submission: it has not ridden a train yet');
    expect(why.stdout).toContain('now: queued at position 1');
    const log = await land(repo.dir, ['log', third as string]);
    expect(log.code).toBe(4);
    expect(log.stderr).toContain('has not ridden a train yet');
  });

  it('corrupt journal lines are skipped and noted', async () => {
    const first = ids[0] as string;
    const path = join(stateDir(repo), 'journal.jsonl');
    const before = readFileSync(path, 'utf8').split('\n').length - 1;
    appendFileSync(path, `{"at":"x","job":"${first}", torn\n`);
    const why = await land(repo.dir, ['why', first, '--json']);
    expect(why.code, why.stderr).toBe(0);
    expect(why.json().skippedJournalLines).toEqual([before + 1]);
    expect(why.stderr).toContain(`1 journal line(s) mentioning ${first} could not be read and were skipped (line ${before + 1})`);
    expect(why.json().events.at(-1)).toMatchObject({ kind: 'now', state: 'landed' });
  });
});
