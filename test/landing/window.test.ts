import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo, tempDir } from '../helpers/repo.js';
import { makeQueueRepo, submitBranches } from '../helpers/queue.js';
import { runDrain } from '../helpers/drainHarness.js';
import { BASIC_POLICY, stateDir } from '../helpers/state.js';

afterAll(cleanupTempDirs);

async function windowOf(dir: string) {
  const result = await land(dir, ['window', '--json']);
  expect(result.code, result.stderr).toBe(0);
  return result.json();
}

describe('the window', () => {
  it('is sized from the recorded culprit rate after each landing or culprit, and is clamped when batch.max is lowered', async () => {
    const repo = makeQueueRepo({ batch: { max: 8 } });
    expect((await windowOf(repo.dir)).size).toBe(8); // a new repository starts at batch.max
    expect((await land(repo.dir, ['window', '--set', '3'])).code).toBe(0);

    await submitBranches(repo, 2, [], 'pass');
    expect((await land(repo.dir, ['run'])).code).toBe(0);
    let view = await windowOf(repo.dir);
    // Two jobs landed, no culprit recorded: batch.max.
    expect(view.size).toBe(8);
    expect(view.history.at(-1)).toMatchObject({ event: 'PASS', before: 3, after: 8, jobs: 2, culprits: 0 });

    await submitBranches(repo, 1, [1], 'fail');
    expect((await land(repo.dir, ['run'])).code).toBe(0);
    view = await windowOf(repo.dir);
    // One culprit in three jobs, plus the prior (one in seven): (1 + 1) / (3 + 7) = 0.2, odds 4: pairs.
    expect(view.size).toBe(2);
    expect(view.history.at(-1)).toMatchObject({ event: 'FAIL', before: 8, after: 2, jobs: 1, culprits: 1 });

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
    // The drain in this process (test/helpers/drainHarness.ts): a stop of null is `land run`'s exit 0.
    const run = await runDrain(repo.dir);
    expect(run.summary.stopped).toBeNull();
    expect(run.events.find((e) => e.type === 'waiting_for_company')).toMatchObject({ seconds: 1 });
    expect(run.summary).toMatchObject({ type: 'summary', landed: [expect.any(String)] });
  });
});

describe('land window --set and --reset: what was done, and by whom', () => {
  it('--set above batch.max says it clamped, in words and in --json; within batch.max it says so plainly', async () => {
    const repo = makeRepo({ policy: { ...BASIC_POLICY, batch: { max: 8 } } });
    const big = await land(repo.dir, ['window', '--set', '99']);
    expect(big.code, big.stderr).toBe(0);
    expect(big.stdout.split('\n')[0]).toBe('window set to 8 (asked 99; clamped to batch.max 8)');
    const json = await land(repo.dir, ['window', '--set', '99', '--json']);
    expect(json.json()).toMatchObject({ size: 8, max: 8, asked: 99, clamped: true });
    const small = await land(repo.dir, ['window', '--set', '3']);
    expect(small.stdout.split('\n')[0]).toBe('window set to 3');
    expect((await land(repo.dir, ['window', '--set', '8', '--json'])).json()).toMatchObject({ size: 8, asked: 8, clamped: false });
  });

  it('records who set or reset it (git user.email, else user.name, else $USER); a train does not; land window shows it', async () => {
    const repo = makeQueueRepo({ batch: { max: 4 } });
    // Only the repository's own identity counts: no global or system git config.
    const env = { GIT_CONFIG_GLOBAL: join(tempDir(), 'none'), GIT_CONFIG_NOSYSTEM: '1', USER: 'shell-user' };
    expect((await land(repo.dir, ['window', '--set', '2'], { env })).code).toBe(0);
    await submitBranches(repo, 1);
    expect((await land(repo.dir, ['run'], { env })).code).toBe(0);
    repo.git('config', '--unset', 'user.email');
    expect((await land(repo.dir, ['window', '--reset'], { env })).code).toBe(0);
    repo.git('config', '--unset', 'user.name');
    expect((await land(repo.dir, ['window', '--set', '1'], { env })).code).toBe(0);

    const history = JSON.parse(readFileSync(join(stateDir(repo), 'window.json'), 'utf8')).history;
    expect(history.map((e: { event: string; by?: string }) => [e.event, e.by])).toEqual([
      ['set', 'test@land.invalid'],
      ['PASS', undefined],
      ['reset', 'Land Test'],
      ['set', 'shell-user'],
    ]);
    const shown = await land(repo.dir, ['window'], { env });
    const lines = shown.stdout.trim().split('\n');
    expect(lines[0]).toBe('window 1 (max 4)');
    expect(lines[1]).toMatch(/ set {3}4 -> 2 {2}by test@land\.invalid$/);
    expect(lines[2]).toMatch(/ PASS {2}2 -> 4 {2}[a-z]-[0-9a-z-]+$/);
    expect(lines[3]).toMatch(/ reset 4 -> 4 {2}by Land Test$/);
    expect(lines[4]).toMatch(/ set {3}4 -> 1 {2}by shell-user$/);
  });

  it('reads a window.json written before entries named who changed it', async () => {
    const repo = makeRepo({ policy: { ...BASIC_POLICY, batch: { max: 8 } } });
    mkdirSync(stateDir(repo), { recursive: true });
    const old = { size: 3, history: [{ at: '2026-01-01T00:00:00.000Z', event: 'set', before: 8, after: 3, train: null }] };
    writeFileSync(join(stateDir(repo), 'window.json'), JSON.stringify(old));
    const shown = await land(repo.dir, ['window']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toBe('window 3 (max 8)\n  2026-01-01T00:00:00.000Z  set   8 -> 3\n');
  });
});

describe('the window without a readable policy', () => {
  const cases: [string, (repo: ReturnType<typeof makeRepo>) => void, RegExp][] = [
    [
      'no .ctm.json on the target',
      () => undefined,
      /^the policy cannot be read: no \.ctm\.json on main \([0-9a-f]{12}\); `land init` writes one; commit it on main: the policy is read from main's tip, not from the worktree$/,
    ],
    [
      'a clone of a master repository without land.target',
      (repo) => {
        repo.git('branch', '-m', 'main', 'master');
        repo.git('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/master'); // as git clone records it
      },
      /^the policy cannot be read: target branch "main" does not exist; origin's default branch is master: `git config land\.target master` in this clone/,
    ],
    [
      'a corrupt .ctm.json',
      (repo) => repo.commit('broken policy', { '.ctm.json': '{"target": "main", ' }),
      /^the policy cannot be read: \.ctm\.json on main \([0-9a-f]{12}\) is invalid \(1 problem\): \(file\): not valid JSON/,
    ],
  ];
  it.each(cases)('%s: status and window say the window is unknown and why (size null in --json)', async (_what, breakPolicy, reason) => {
    const repo = makeRepo();
    repo.branch('feature', { 'f.txt': 'f\n' });
    breakPolicy(repo);
    const status = await land(repo.dir, ['status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    const { window } = status.json();
    expect(window).toMatchObject({ size: null, max: null });
    expect(window.reason).toMatch(reason);
    const human = await land(repo.dir, ['status']);
    expect(human.stdout.split('\n')[0]).toBe(`window unknown (${window.reason}); 0 queued, 0 running`);

    const shown = await land(repo.dir, ['window']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe(`window unknown (${window.reason})\n`);
    expect((await land(repo.dir, ['window', '--json'])).json()).toMatchObject({ size: null, reason: window.reason });
    // A maintainer may still set it; it is kept, not clamped, and applies once the policy is readable.
    const set = await land(repo.dir, ['window', '--set', '5']);
    expect(set.stdout.split('\n').slice(0, 2)).toEqual([
      'window set to 5 (not clamped: batch.max is unknown)',
      `window unknown (${window.reason}); persisted 5`,
    ]);
  });
});
