// `land config` shows the gate slots. A drain whose policy lists an ssh executor refuses to start (exit 3, nothing taken) while this
// version of land does not run gates there; "local" entries gate on the drainer as before.
import { afterAll, describe, expect, it } from 'vitest';
import { isLandError } from '../../../lib/errors.js';
import { land } from '../../helpers/cli.js';
import { runDrain } from '../../helpers/drainHarness.js';
import { jobsById, makeQueueRepo, submitBranches } from '../../helpers/queue.js';
import { cleanupTempDirs } from '../../helpers/repo.js';

afterAll(cleanupTempDirs);

describe('a drain with executors', () => {
  it('refuses ssh executors before taking anything, and gates on the drainer’s "local" slots', async () => {
    const repo = makeQueueRepo({ policy: { executors: [{ host: 'local' }, { host: 'ssh://ci@127.0.0.1:1', slots: 2 }] } });
    const config = await land(repo.dir, ['config']);
    expect(config.stdout).toContain('gate slots: 1 on the drainer, 2 on ssh://ci@127.0.0.1:1 (/var/tmp/land), 3 in all; 1 train gates at a time\n');
    const [id] = await submitBranches(repo, 1);
    const error = await runDrain(repo.dir).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(isLandError(error, 'config')).toBe(true);
    expect((error as Error).message).toBe('executors: this version of land does not yet run gates on ssh executors (ssh://ci@127.0.0.1:1)');
    expect((await jobsById(repo)).get(id as string).state).toBe('queued');
    expect(repo.gateRuns()).toBe(0);

    const policy = JSON.parse(repo.git('show', 'main:.ctm.json'));
    policy.executors = [{ host: 'local', slots: 2 }];
    repo.policy(policy);
    const run = await runDrain(repo.dir);
    expect(run.summary.landed).toEqual([id]);
  });
});
