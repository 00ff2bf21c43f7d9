// `land gc` in a clone's own queue: after a real drain (in this process) with one culprit, the
// finished jobs' records and the logs of the trains only they rode go from .git/land/; a queued
// job, its record and the metrics rows stay, and `land stats` shows what it showed before.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs } from '../helpers/repo.js';
import { makeQueueRepo, submitBranches } from '../helpers/queue.js';
import { stateDir } from '../helpers/state.js';
import { runDrain, submitInProcess } from '../helpers/drainHarness.js';

afterAll(cleanupTempDirs);

describe('land gc in a local queue', () => {
  it('prunes finished jobs and their trains, keeps a queued job and the metrics', async () => {
    const repo = makeQueueRepo({});
    const ids = await submitBranches(repo, 2, [2]);
    await runDrain(repo.dir);
    repo.git('checkout', '-q', '-b', 'later', 'main');
    repo.commit('later', { 'later.txt': 'later\n' });
    repo.git('checkout', '-q', 'main');
    const [queued] = await submitInProcess(repo.dir, ['later']);
    const state = stateDir(repo);
    const metrics = join(state, 'metrics.jsonl');
    const figures = async () => ({ ...(await land(repo.dir, ['stats', '--json'])).json(), period: null });
    const before = await figures();

    const young = (await land(repo.dir, ['gc', '--json'])).json();
    expect(young).toMatchObject({ olderThan: '30d', jobs: [], trains: [], remoteRefs: 0 });

    const gc = await land(repo.dir, ['gc', '--older-than', '0m', '--json']);
    expect(gc.code, gc.stderr).toBe(0);
    const out = gc.json();
    expect(out.jobs.sort()).toEqual([...ids].sort());
    expect(out.trains.length).toBeGreaterThan(0);
    for (const id of ids) expect(existsSync(join(state, 'jobs', `${id}.json`))).toBe(false);
    for (const train of out.trains) expect(existsSync(join(state, 'logs', `${train}.log`))).toBe(false);
    expect(existsSync(join(state, 'jobs', `${queued}.json`))).toBe(true);
    expect(existsSync(metrics)).toBe(true);
    // Every figure outlives the records: gc kept what stats counts of them (pruned.jsonl).
    expect(existsSync(join(state, 'pruned.jsonl'))).toBe(true);
    expect(await figures()).toEqual(before);
    const status = await land(repo.dir, ['status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json().jobs.map((job: { id: string }) => job.id)).toEqual([queued]);

    const bad = await land(repo.dir, ['gc', '--older-than', 'a month']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--older-than');
  });
});
