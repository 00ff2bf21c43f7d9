import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs } from '../helpers/repo.js';
import { makeQueueRepo, submitBranches } from '../helpers/queue.js';

afterAll(cleanupTempDirs);

async function windowOf(dir: string) {
  const result = await land(dir, ['window', '--json']);
  expect(result.code, result.stderr).toBe(0);
  return result.json();
}

describe('the window', () => {
  it('grows by one on a PASS, halves on a FAIL, and is clamped when batch.max is lowered', async () => {
    const repo = makeQueueRepo({ batch: { max: 8 } });
    expect((await windowOf(repo.dir)).size).toBe(8); // a new repository starts at batch.max
    expect((await land(repo.dir, ['window', '--set', '3'])).code).toBe(0);

    await submitBranches(repo, 2, [], 'pass');
    expect((await land(repo.dir, ['run'])).code).toBe(0);
    let view = await windowOf(repo.dir);
    expect(view.size).toBe(4);
    expect(view.history.at(-1)).toMatchObject({ event: 'PASS', before: 3, after: 4 });

    await submitBranches(repo, 1, [1], 'fail');
    expect((await land(repo.dir, ['run'])).code).toBe(0);
    view = await windowOf(repo.dir);
    expect(view.size).toBe(2);
    expect(view.history.at(-1)).toMatchObject({ event: 'FAIL', before: 4, after: 2 });

    // A policy that lowers batch.max takes effect on the next read, without a restart.
    const policy = JSON.parse(repo.git('show', 'main:.ctm.json'));
    policy.batch.max = 1;
    repo.policy(policy);
    view = await windowOf(repo.dir);
    expect(view).toMatchObject({ size: 1, max: 1, persisted: 2 });
    // --set is clamped too, and --reset starts over at batch.max.
    expect((await land(repo.dir, ['window', '--set', '5', '--json'])).json().size).toBe(1);
    expect((await land(repo.dir, ['window', '--set', 'zero'])).code).toBe(2);
  });

  it('lets a lone job wait batch.waitSeconds for company', async () => {
    const repo = makeQueueRepo({ batch: { max: 4, waitSeconds: 1 } });
    await submitBranches(repo, 1);
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const events = run.lines();
    expect(events.find((e) => e.type === 'waiting_for_company')).toMatchObject({ seconds: 1 });
    expect(events.at(-1)).toMatchObject({ type: 'summary', landed: [expect.any(String)] });
  });
});
