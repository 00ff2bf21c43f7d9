// What a failed job says about its failure: a verdict taken from the cache names the train that
// ran the gate and that train's log, and is not recorded as a fast path; a gate that could not
// start carries its last stderr line; the infrastructure back-off says how long it waits.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, assert, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { jobsById, makeQueueRepo, submitBranches } from '../../helpers/queue.js';
import { FAIL_AT_ONCE } from '../../helpers/state.js';
import { stateDir } from '../../helpers/state.js';

afterAll(cleanupTempDirs);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('failure messages', () => {
  it('a FAIL from the verdict cache names the train that ran the gate and points at its log; it is no fast path', async () => {
    // Without a flaky allowance (retries.flaky 0) a lone job's cached FAIL is final; with one, its
    // gates would run again despite the cache (test/landing/trains/flaky.test.ts).
    const repo = makeQueueRepo({ policy: FAIL_AT_ONCE });
    // b2 is the culprit: [b1 b2] fails, b1 lands alone, and b2 alone on the new main is the
    // failed train's tree again, judged from the verdict cache.
    const [, culprit] = await submitBranches(repo, 2, [2]);
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(repo.gateRuns()).toBe(2);
    const events = run.lines();
    const first = events.find((e) => e.type === 'train_built').train as string;
    const firstLog = join(stateDir(repo), 'logs', `${first}.log`);
    expect(events.find((e) => e.type === 'verdict' && e.train === first)).toMatchObject({ verdict: 'FAIL', cached: false, log: firstLog });
    expect(readFileSync(firstLog, 'utf8')).toMatch(/found culprit-2: failing/);

    const job = (await jobsById(repo)).get(culprit as string);
    expect(job.state).toBe('failed');
    expect(job.error?.message).toBe(`gate test: exit 1 (cached: the same tree failed in train ${first}); log ${firstLog}`);
    expect(job.gateLog).toBe(firstLog);
    expect(job.gate).toMatchObject({ mode: 'cached', source: 'cache', cachedFrom: first, cachedVerdict: 'FAIL', cachedLog: firstLog });
    // Recorded as what happened: a cached FAIL, not a fast path taken.
    expect(job.fastPath).toMatchObject({ alone: false, refusal: 'cached_fail', cachedFrom: first });
    const show = await land(repo.dir, ['show', culprit as string]);
    expect(show.stdout).toMatch(new RegExp(`fast path\\s+failed from the verdict cache: the same tree failed in train ${escapeRegExp(first)}`));
    expect(show.stdout).not.toMatch(/lands alone without a gate/);
    expect(show.stdout).toMatch(new RegExp(`gate\\s+from cache \\(FAIL of train ${escapeRegExp(first)}\\); log ${escapeRegExp(firstLog)}`));
  });

  it('a gate that cannot start carries its last stderr line; the back-off says it waits and how long', async () => {
    const repo = makeQueueRepo({ policy: { gates: [{ name: 'test', run: 'mytset' }], retries: { infra: 1 } } });
    const [id] = await submitBranches(repo, 1);
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const events = run.lines();
    // dash says "sh: 1: mytset: not found", bash "sh: line 1: mytset: command not found".
    const said = /^gate test: exit 127 \(gate_not_started\): sh: .*mytset: (command )?not found; nothing was tested/;
    const requeued = events.find((e) => e.type === 'requeued');
    expect(requeued.reason).toMatch(said);
    expect(events.find((e) => e.type === 'backing_off')).toEqual({ type: 'backing_off', seconds: 1, reason: 'gate_not_started' });
    // The back-off comes between the two attempts, and only while a job is left to try.
    expect(events.filter((e) => e.type === 'backing_off')).toHaveLength(1);
    const failed = events.find((e) => e.type === 'failed');
    expect(failed.message).toMatch(said);
    const job = (await jobsById(repo)).get(id as string);
    expect(job).toMatchObject({ state: 'failed', reason: 'infra' });
    expect(job.error?.message).toMatch(said);
    expect(job.error?.message).toMatch(/gave up after 1 retries$/);
    // The log keeps the gate's output whole.
    assert.exists(job.gateLog, 'the failed job names its gate log');
    expect(readFileSync(job.gateLog, 'utf8')).toMatch(/mytset: (command )?not found/);

    // Human output says the same, on stderr.
    await submitBranches(repo, 1, [], 'again');
    const human = await land(repo.dir, ['run']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toMatch(/infrastructure failure \(gate_not_started\); waiting 1s before the next train/);
    expect(human.stderr).toMatch(/mytset: (command )?not found; nothing was tested/);
  });

  it('a secret passed to a gate that cannot start is redacted from the quoted stderr line', async () => {
    const repo = makeQueueRepo({
      policy: { gates: [{ name: 'test', run: 'echo "token $API_TOKEN" >&2; exit 127', passEnv: ['API_TOKEN'] }], retries: { infra: 0 } },
    });
    const [id] = await submitBranches(repo, 1);
    const run = await land(repo.dir, ['run', '--json'], { env: { API_TOKEN: 'hunter2-secret' } });
    expect(run.code, run.stderr).toBe(0);
    const job = (await jobsById(repo)).get(id as string);
    expect(job.error?.message).toMatch(/\(gate_not_started\): token \*\*\*; nothing was tested/);
    expect(run.stdout).not.toMatch(/hunter2/);
  });
});
