// The policy's notify commands hear the drain's events end to end: a landed and a failed job each
// reach a command that reads the event on stdin, a notifier that fails or hangs is a warning and
// holds no landing back, and `land run --fail-on-failed` exits 15 because a job failed.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, land } from '../../helpers/cli.js';
import { jobsById, makeQueueRepo, submitBranches } from '../../helpers/queue.js';
import { drain, editJob, reconcile, submit } from '../../helpers/reconcile.js';
import { cleanupTempDirs, makeRepo, tempDir } from '../../helpers/repo.js';

afterAll(cleanupTempDirs);

describe('notify', () => {
  it('runs the notify commands for landed and failed jobs, never blocked by a failing or hanging one', async () => {
    const repo = makeQueueRepo({
      policy: {
        notify: [
          { on: ['landed', 'failed'], run: ['sh', '-c', 'echo webhook down >&2; exit 3'] },
          { on: ['failed'], run: ['sleep', '30'], timeoutSeconds: 1 },
          { on: ['landed', 'failed', 'stopped'], run: ['sh', join(FIXTURES, 'notify', 'append-stdin.sh')], env: { NOTIFY_OUT: '' } },
        ],
      },
    });
    const out = join(repo.scratch, 'notified.jsonl');
    // The policy names the output file: written again with it (the scratch folder is known only now).
    const policy = JSON.parse(repo.git('show', 'main:.ctm.json'));
    policy.notify[2].env.NOTIFY_OUT = out;
    repo.commit('notify to the scratch folder', { '.ctm.json': `${JSON.stringify(policy, null, 2)}\n` });
    const [good, bad] = await submitBranches(repo, 2, [2]);

    const run = await land(repo.dir, ['run', '--fail-on-failed', '--json']);
    expect(run.code, run.stderr).toBe(15);
    const jobs = await jobsById(repo);
    expect(jobs.get(good as string).state).toBe('landed');
    expect(jobs.get(bad as string).state).toBe('failed');
    expect(repo.git('ls-tree', '--name-only', 'main')).toContain('file-b1.txt');

    expect(existsSync(out)).toBe(true);
    const heard = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(heard.map((n) => [n.event, n.job?.id])).toEqual([
      ['landed', good],
      ['failed', bad],
    ]);
    expect(heard[0]).toMatchObject({ version: 1, target: 'main', job: { branch: 'b1', state: 'landed' }, commit: repo.tip('main') });
    expect(heard[1]).toMatchObject({
      job: { branch: 'b2', state: 'failed', reason: 'gate' },
      gate: { name: 'test', status: expect.stringMatching(/^exit 1/) },
    });
    expect(heard[1].gate.excerpt.join('\n')).toContain('found culprit-2: failing');

    const warnings = run
      .lines()
      .filter((e) => e.type === 'warning')
      .map((e) => e.message);
    expect(warnings).toContain(`notify "sh -c echo webhook down >&2; exit 3" for landed ${good}: exit 3 (webhook down)`);
    expect(warnings).toContain(`notify "sleep 30" for failed ${bad}: timed out`);
    expect(run.lines().at(-1)).toMatchObject({ type: 'summary', landed: [good], failed: [bad], stopped: null });
  });

  it('tells the uncertain notifiers of each job land reconcile moved to uncertain', async () => {
    const out = join(tempDir('land-notified-'), 'notified.jsonl');
    const append = ['sh', join(FIXTURES, 'notify', 'append-stdin.sh')];
    const repo = makeRepo({
      policy: { target: 'main', gates: [{ name: 'test', run: ['true'] }], notify: [{ on: ['uncertain'], run: append, env: { NOTIFY_OUT: out } }] },
    });
    const side = repo.branch('side', { 'side.txt': 'never landed\n' });
    const [job] = await submit(repo, ['b']);
    await drain(repo);
    editJob(repo, job as string, { train: side }); // landed, its train not in main: uncertain
    const result = await reconcile(repo);
    expect(result.out.uncertain.map((u) => u.job)).toEqual([job]);
    const heard = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(heard).toMatchObject([{ event: 'uncertain', target: 'main', job: { id: job, branch: 'b', state: 'uncertain', reason: 'landed_not_in_target' } }]);
  });
});
