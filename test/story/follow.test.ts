// `land log -f` follows a gate while it runs, and `land show` names the log a running job's gate
// is writing: a drain whose gate waits for the test to let it go.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, assert, describe, expect, it } from 'vitest';
import { land, startLand } from '../helpers/cli.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';
import { makeQueueRepo, submitBranches } from '../helpers/queue.js';
import { readJobFile, stateDir } from '../helpers/state.js';
import { waitForFile, waitUntil } from '../helpers/wait.js';

afterAll(cleanupTempDirs);

describe('land log -f and land show of a running job', () => {
  it('follows the running gate, prints what is written after it started, and exits when the train is over', async () => {
    const scratch = tempDir('land-follow-');
    const started = join(scratch, 'started');
    const go = join(scratch, 'go');
    const repo = makeQueueRepo({ gate: { script: 'talk-and-wait.sh', env: { GATE_STARTED: started, GATE_GO: go } } });
    const [id] = (await submitBranches(repo, 1)) as [string];
    const drainer = startLand(repo.dir, ['run', '--json']);
    try {
      await waitForFile(started);
      const record = readJobFile(repo, id);
      expect(record.state).toBe('in_progress');
      const train = record.batch?.train;
      assert.exists(train, 'the running job names its train');
      const path = join(stateDir(repo), 'logs', `${train}.log`);

      const show = await land(repo.dir, ['show', id]);
      expect(show.stdout).toMatch(new RegExp(`log \\(running\\)\\s+${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      expect((await land(repo.dir, ['show', id, '--json'])).json()).toMatchObject({ runningLog: path, batch: { train } });

      const follower = startLand(repo.dir, ['log', id, '-f']);
      await waitUntil('the follower to print the gate output so far', () => follower.output().stdout.includes('talk: before go'), 20_000);
      expect(follower.output().stdout).not.toContain('after go');
      writeFileSync(go, '');
      const followed = await Promise.race([
        follower.done,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('land log -f did not exit after the train was over')), 20_000)),
      ]);
      expect(followed.code, followed.stderr).toBe(0);
      expect(followed.stderr).toContain(`following ${path}`);
      expect(followed.stdout).toContain('talk: after go, line 2');
      expect(followed.stdout).toMatch(/== gate test: exit 0 after [0-9.]+s/);
      const run = await drainer.done;
      expect(run.code, run.stderr).toBe(0);
      expect(readJobFile(repo, id).state).toBe('landed');
      // What it printed is the log as it ended.
      const log = await land(repo.dir, ['log', id]);
      expect(followed.stdout).toBe(log.stdout);
      // Once the job is no longer running, show names no running log.
      expect((await land(repo.dir, ['show', id])).stdout).not.toContain('log (running)');
    } finally {
      writeFileSync(go, '');
      await drainer.done;
    }
  });
});
