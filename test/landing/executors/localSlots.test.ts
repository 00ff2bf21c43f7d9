// `land config` shows the gate slots; "local" entries gate on the drainer as without the key (the
// ssh executors' drain: shipSshd.test.ts).
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { runDrain } from '../../helpers/drainHarness.js';
import { makeQueueRepo, submitBranches } from '../../helpers/queue.js';
import { cleanupTempDirs } from '../../helpers/repo.js';

afterAll(cleanupTempDirs);

describe('a drain with executors', () => {
  it('shows the gate slots, and gates on the drainer’s "local" slots', async () => {
    const repo = makeQueueRepo({ policy: { executors: [{ host: 'local' }, { host: 'ssh://ci@127.0.0.1:1', slots: 2 }] } });
    const config = await land(repo.dir, ['config']);
    expect(config.stdout).toContain('gate slots: 1 on the drainer, 2 on ssh://ci@127.0.0.1:1 (/var/tmp/land), 3 in all; 1 train gates at a time\n');
    const [id] = await submitBranches(repo, 1);
    const policy = JSON.parse(repo.git('show', 'main:.ctm.json'));
    policy.executors = [{ host: 'local', slots: 2 }];
    repo.policy(policy);
    const run = await runDrain(repo.dir);
    expect(run.summary.landed).toEqual([id]);
  });
});
