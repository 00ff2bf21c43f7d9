// LAND_FAILPOINT: the CLI kills itself (SIGKILL) at a named point. Each test proves the process
// really died there (the state it left says so), then that a plain `land run` finishes the queue:
// every job landed exactly once or failed with a reason, nothing unexpected landed, and
// `land reconcile --check` finds nothing to repair.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land, startLand } from '../helpers/cli.js';
import { cleanupTempDirs, type TestRepo } from '../helpers/repo.js';
import { statusJobsById, landedOrder, makeQueueRepo, submitBranches, type QueueRepo } from '../helpers/queue.js';
import { UNSANDBOXED } from '../helpers/repo.js';
import { waitUntil } from '../helpers/wait.js';

afterAll(cleanupTempDirs);

const stateDir = (repo: TestRepo) => join(repo.dir, '.git', 'land');

/** Runs the CLI with a failpoint armed; it must die by SIGKILL, saying which point fired. */
async function killedAt(repo: TestRepo, args: string[], point: string, env: Record<string, string> = {}): Promise<void> {
  const run = startLand(repo.dir, args, { env: { ...env, LAND_FAILPOINT: point } });
  const ended = await run.done;
  expect(ended.signal, `${args.join(' ')} with LAND_FAILPOINT=${point}: ${ended.stderr}`).toBe('SIGKILL');
  expect(ended.stderr).toContain(`failpoint ${point.replace(/@\d+$/, '')} reached`);
}

/** Commits in the object store carrying a Land-Job trailer (train merges, reachable or not). */
function trainCommits(repo: TestRepo): string[] {
  const objects = repo.git('cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype)');
  return objects
    .split('\n')
    .filter((line) => line.endsWith(' commit'))
    .map((line) => line.split(' ')[0] as string)
    .filter((sha) => repo.git('cat-file', 'commit', sha).includes('Land-Job: '));
}

async function states(repo: TestRepo, ids: readonly string[]): Promise<string[]> {
  const jobs = await statusJobsById(repo);
  return ids.map((id) => jobs.get(id).state);
}

/** Job ids of the target's first-parent commits since `base`: a merge's Land-Job trailer, or the job whose tip was fast-forwarded to. */
function landedSince(repo: TestRepo, base: string, tips: Map<string, string>): string[] {
  const log = repo.git('log', '--first-parent', '--format=%H %(trailers:key=Land-Job,valueonly,separator=%x2C)', `${base}..main`);
  return log
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [sha, trailer] = line.split(' ');
      return trailer || tips.get(sha as string) || `unexpected ${sha}`;
    });
}

/** The queue finished: the good jobs landed once each, the culprit failed with a reason, nothing else landed. */
async function finishes(repo: QueueRepo, base: string, good: readonly string[], culprit: string | null): Promise<void> {
  const run = await land(repo.dir, ['run', '--json'], { env: { LAND_FAILPOINT: undefined } });
  expect(run.code, run.stderr).toBe(0);
  const jobs = await statusJobsById(repo);
  for (const id of good) expect(jobs.get(id).state, id).toBe('landed');
  if (culprit) {
    expect(jobs.get(culprit).state).toBe('failed');
    expect(jobs.get(culprit).reason).toBeTruthy();
  }
  const tips = new Map([...jobs.values()].map((job) => [job.tip, job.id]));
  expect(landedSince(repo, base, tips).sort()).toEqual([...good].sort()); // each once, no culprit, nothing else
  expect(repo.git('ls-tree', '--name-only', 'main')).not.toMatch(/culprit-/);
  for (const dir of ['jobs', 'locks']) expect(readdirSync(join(stateDir(repo), dir)).filter((n) => n.includes('.tmp-'))).toEqual([]);
  // Records, journal, metrics and git agree: nothing for reconcile to repair.
  const check = await land(repo.dir, ['reconcile', '--check', '--json']);
  expect(check.code, check.stdout + check.stderr).toBe(0);
  expect(check.json()).toMatchObject({ disagreements: 0 });
}

describe('failpoints kill the CLI where they say, and the next land run finishes the queue', () => {
  it('after-claim: members are in_progress, no train commit was built, no gate ran', async () => {
    const repo = makeQueueRepo();
    const [good, culprit] = await submitBranches(repo, 2, [2]);
    const before = repo.tip('main');
    await killedAt(repo, ['run'], 'after-claim');
    expect(await states(repo, [good as string, culprit as string])).toEqual(['in_progress', 'in_progress']);
    expect(trainCommits(repo)).toEqual([]);
    expect(repo.gateRuns()).toBe(0);
    expect(repo.tip('main')).toBe(before);
    await finishes(repo, before, [good as string], culprit as string);
  });

  it('after-train-commit: the train commit exists, no gate ran, the target did not move', async () => {
    const repo = makeQueueRepo();
    const [good, other] = await submitBranches(repo, 2);
    const before = repo.tip('main');
    await killedAt(repo, ['run'], 'after-train-commit');
    expect(await states(repo, [good as string, other as string])).toEqual(['in_progress', 'in_progress']);
    expect(trainCommits(repo).length).toBe(2); // one merge per member
    expect(repo.gateRuns()).toBe(0);
    expect(repo.tip('main')).toBe(before);
    await finishes(repo, before, [good as string, other as string], null);
  });

  it('mid-gate: the gate had started, no verdict was recorded', async () => {
    // Unsandboxed, the gate outlives its killed drainer and writes its line (a sandbox dies with it).
    const repo = makeQueueRepo({ policy: { sandbox: UNSANDBOXED } });
    const [good, other] = await submitBranches(repo, 2);
    const before = repo.tip('main');
    await killedAt(repo, ['run'], 'mid-gate');
    await waitUntil('the orphaned gate to write its line', () => repo.gateRuns() === 1);
    const jobs = await statusJobsById(repo);
    for (const id of [good, other]) expect(jobs.get(id)).toMatchObject({ state: 'in_progress', verdict: null });
    expect(repo.tip('main')).toBe(before);
    await finishes(repo, before, [good as string, other as string], null);
  });

  it('after-cas, then a power cut: the records the drain wrote without fsync are rebuilt from the journal; recovery lands them once', async () => {
    const repo = makeQueueRepo();
    const [first, second] = await submitBranches(repo, 2);
    const before = repo.tip('main');
    const recordOf = (id: string) => join(stateDir(repo), 'jobs', `${id}.json`);
    const submitted = readFileSync(recordOf(second as string), 'utf8'); // fsynced by the submit
    await killedAt(repo, ['run'], 'after-cas', { LAND_BOOT_ID: 'boot-a' });
    expect(repo.tip('main')).not.toBe(before);
    expect(landedOrder(repo).sort()).toEqual([first, second].sort()); // the train is in the target
    expect(await states(repo, [first as string, second as string])).toEqual(['in_progress', 'in_progress']);
    // The machine stops before the page cache reached the disk: the drain's writes without fsync
    // are lost, one record left empty and the other as it was before the drain (queued).
    expect(existsSync(join(stateDir(repo), 'unsynced.json'))).toBe(true);
    writeFileSync(recordOf(first as string), '');
    writeFileSync(recordOf(second as string), submitted);
    const run = await land(repo.dir, ['run', '--json'], { env: { LAND_BOOT_ID: 'boot-b' } });
    expect(
      run
        .lines()
        .filter((e) => e.type === 'record_rebuilt')
        .map((e) => e.job)
        .sort(),
    ).toEqual([first, second].sort());
    expect(run.lines().filter((e) => e.type === 'corrupt_record')).toEqual([]);
    expect(existsSync(join(stateDir(repo), 'unsynced.json'))).toBe(false);
    expect(run.lines().filter((e) => e.type === 'recovered')).toHaveLength(2);
    await finishes(repo, before, [first as string, second as string], null);
    expect(repo.gateRuns()).toBe(1); // the recovered train is not gated again
  });

  it('tmp-before-rename: a submit killed between write and rename leaves a temp file readers ignore; the record is rebuilt from the journal', async () => {
    const repo = makeQueueRepo();
    const before = repo.tip('main');
    repo.branch('late', { 'late.txt': 'late\n' });
    await killedAt(repo, ['submit', 'late'], 'tmp-before-rename');
    const jobsDir = join(stateDir(repo), 'jobs');
    const temps = readdirSync(jobsDir).filter((name) => name.includes('.tmp-'));
    expect(temps).toHaveLength(1);
    expect(readdirSync(jobsDir).filter((name) => name.endsWith('.json'))).toEqual([]);
    const status = await land(repo.dir, ['status', '--all', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json()).toMatchObject({ jobs: [] });
    expect(status.json().corrupt ?? []).toEqual([]);
    const id = /^j-[0-9-]+/.exec(temps[0] as string)?.[0] as string;
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines()).toContainEqual(expect.objectContaining({ type: 'record_rebuilt', job: id, state: 'queued' }));
    await finishes(repo, before, [id], null);
  });

  it('mid-journal-append: a torn last journal line is ignored, and the next line starts on its own line', async () => {
    const repo = makeQueueRepo();
    const [first, second] = await submitBranches(repo, 2);
    const before = repo.tip('main');
    const journal = join(stateDir(repo), 'journal.jsonl');
    await killedAt(repo, ['run'], 'mid-journal-append');
    const text = readFileSync(journal, 'utf8');
    expect(text.endsWith('\n')).toBe(false); // the torn line
    // The torn line was the run's first journal line: no record changed with it.
    expect(await states(repo, [first as string, second as string])).toEqual(['queued', 'queued']);
    const why = await land(repo.dir, ['why', first as string]);
    expect(why.code, why.stderr).toBe(0);
    await finishes(repo, before, [first as string, second as string], null);
    const lines = readFileSync(journal, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const bad = lines.filter((line) => {
      try {
        JSON.parse(line);
        return false;
      } catch {
        return true;
      }
    });
    expect(bad).toHaveLength(1); // only the torn one; every later line is whole
    expect((await land(repo.dir, ['log', first as string])).code).toBe(0);
  });
});
