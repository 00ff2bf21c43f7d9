// `land run` and the hook protecting the target, end to end: with the hook installed, a drain
// checks before each landing that git will run that very hook. A core.hooksPath set since the
// install (what a gate running as the drainer's user can do) or a hook file replaced stops the
// drain before the compare-and-swap: the target does not move and the job is back in the queue.
// With no hook installed (or after uninstall) there is nothing to check.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo, tempDir, type TestRepo } from '../helpers/repo.js';
import { BASIC_POLICY, readJobFile } from '../helpers/state.js';

afterAll(() => cleanupTempDirs());

/** A repository with land's hook installed in .git/hooks and one job queued. */
async function installedWithJob(): Promise<{ repo: TestRepo; id: string; main: string; hooks: string }> {
  const repo = makeRepo({ policy: BASIC_POLICY });
  repo.git('config', '--unset', 'core.hooksPath'); // the helper points hooks at /dev/null
  const installed = await land(repo.dir, ['hooks', 'install']);
  expect(installed.code, installed.stderr).toBe(0);
  repo.branch('feature', { 'f.txt': 'f\n' });
  const submitted = await land(repo.dir, ['submit', 'feature', '--json']);
  expect(submitted.code, submitted.stderr).toBe(0);
  return { repo, id: submitted.json().job.id, main: repo.tip('main'), hooks: join(repo.dir, '.git', 'hooks') };
}

/** `land run --json` that stopped before landing: exit 5, the message, nothing landed, the job queued. */
async function stoppedBeforeLanding(fixture: { repo: TestRepo; id: string; main: string }) {
  const run = await land(fixture.repo.dir, ['run', '--json']);
  expect(run.code, run.stderr).toBe(5);
  const summary = run.lines().at(-1);
  expect(summary).toMatchObject({ type: 'summary', landed: [], stopped: { why: 'hook_off' } });
  expect(fixture.repo.tip('main')).toBe(fixture.main);
  expect(readJobFile(fixture.repo, fixture.id)).toMatchObject({ state: 'queued', reason: 'hook_off' });
  return summary.stopped.message as string;
}

describe('land run with land hook installed', () => {
  it('stops before landing when core.hooksPath now points elsewhere; lands once the setting is gone', async () => {
    const fixture = await installedWithJob();
    const elsewhere = tempDir('land-hooks-elsewhere-');
    fixture.repo.git('config', 'core.hooksPath', elsewhere);
    expect(await stoppedBeforeLanding(fixture)).toBe(
      `core.hooksPath now points at ${elsewhere}: land's hook in ${fixture.hooks} would not run; remove the setting or run \`land hooks install\` again`,
    );

    fixture.repo.git('config', '--unset', 'core.hooksPath');
    const again = await land(fixture.repo.dir, ['run', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.lines().at(-1)).toMatchObject({ landed: [fixture.id] });
    expect(fixture.repo.git('rev-parse', 'main~1')).toBe(fixture.main);
  });

  it('stops before landing when the hook file was replaced', async () => {
    const fixture = await installedWithJob();
    const hook = join(fixture.hooks, 'reference-transaction');
    writeFileSync(hook, '#!/bin/sh\n# land-managed-hook\nexit 0\n', { mode: 0o755 });
    expect(await stoppedBeforeLanding(fixture)).toBe(
      `${hook} is not the hook \`land hooks install\` wrote (it was changed): main may not be protected; run \`land hooks install --force\` again (or \`land hooks uninstall\` to land without it)`,
    );
  });

  it('checks nothing once the hook is uninstalled: the drain lands whatever core.hooksPath says', async () => {
    const fixture = await installedWithJob();
    const uninstalled = await land(fixture.repo.dir, ['hooks', 'uninstall']);
    expect(uninstalled.code, uninstalled.stderr).toBe(0);
    fixture.repo.git('config', 'core.hooksPath', '/dev/null');
    const run = await land(fixture.repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines().at(-1)).toMatchObject({ landed: [fixture.id], stopped: null });
  });
});
