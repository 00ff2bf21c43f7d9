// `land config` shows the gate slots; "local" entries gate on the drainer as without the key; an
// ssh executor reached through the stand-in ssh (fixtures/ssh/fake-ssh, on any machine), which
// ignores the connection reuse options and refuses `-O exit` (the real sshd's drain: shipSshd.test.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LAND_BIN, land } from '../../helpers/cli.js';
import { FAKE_SSH } from '../../helpers/fakeSsh.js';
import { runDrain } from '../../helpers/drainHarness.js';
import { makeQueueRepo, submitBranches } from '../../helpers/queue.js';
import { cleanupTempDirs, tempDir } from '../../helpers/repo.js';

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

  it('gates on an ssh executor through a stand-in ssh that has no master connections', async () => {
    const dir = join(tempDir('land-executor-'), 'fake');
    const repo = makeQueueRepo({ policy: { executors: [{ host: 'ssh://fakehost', dir, land: `${process.execPath} ${LAND_BIN}` }] } });
    const [id] = await submitBranches(repo, 1);
    const env = { LAND_SSH: FAKE_SSH, FAKE_SSH_HOSTS: 'fakehost', FAKE_SSH_HOME: tempDir('land-fake-home-') };
    const run = await runDrain(repo.dir, { env });
    expect(run.summary.landed).toEqual([id]);
    expect(existsSync(join(dir, 'slots', '0'))).toBe(true); // the gates ran on the "executor"
    expect((await land(repo.dir, ['log', id as string])).stdout).toMatch(/== gates on ssh:\/\/fakehost, slot 0\n[\s\S]*== gate test: exit 0 after /);
  });
});
