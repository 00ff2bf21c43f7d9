// `land log` in a developer's clone of a team's queue, for the two failures whose train has no
// published log of its own: a verdict taken from the verdict cache (the judging train's published
// log is printed) and a conflict (no gate ran: one line says so, exit 0); `land why`
// and `land show` there name the verdict's log by a path on this machine, not the drainer's.
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { makeTeam, queuePolicy } from '../../helpers/remoteTeam.js';
import { FAIL_AT_ONCE } from '../../helpers/state.js';
import { ok } from '../../helpers/teamKit.js';

afterAll(cleanupTempDirs);

describe("land log in a developer's clone", () => {
  it('prints the judging train of a cached FAIL, and says that a conflict ran no gate', async () => {
    const team = makeTeam({ policy: queuePolicy({}, FAIL_AT_ONCE) });
    const dev = team.clone('dev');
    const ci = team.clone('ci');
    dev.branch('first', { broken: 'yes\n' });
    dev.branch('second', { broken: 'yes\n' }); // the same tree as first's train: a cached FAIL
    dev.branch('c1', { 'shared.txt': 'one\n' });
    dev.branch('c2', { 'shared.txt': 'two\n' }); // conflicts with c1 once it landed
    const submit = async (...branches: string[]) =>
      ok(await land(dev.dir, ['submit', ...branches, '--json']))
        .lines()
        .map((line) => line.job.id as string);
    const [first] = await submit('first');
    ok(await land(ci.dir, ['run']));
    const [second, c1, c2] = await submit('second', 'c1', 'c2');
    ok(await land(ci.dir, ['run']));
    expect(ok(await land(dev.dir, ['show', c1 as string, '--json'])).json().state).toBe('landed');
    const cached = ok(await land(dev.dir, ['show', second as string, '--json'])).json();
    expect(cached).toMatchObject({ state: 'failed', gate: { mode: 'cached' } });
    const judging = cached.gate.cachedFrom as string;

    // The cached train's own log (headers only) was never published: the judging train's is printed.
    const log = ok(await land(dev.dir, ['log', second as string]));
    expect(log.stdout).toMatch(
      new RegExp(`^== the verdict of train \\S+ came from the verdict cache: train ${judging} judged the same tree; its log \\(${dev.dir}/`),
    );
    expect(log.stdout).toContain('== gate test: exit 1');
    // --train alone: the train's job is found from the train.
    expect(ok(await land(dev.dir, ['log', '--train', judging])).stdout).toContain(`): ${first}\n== gate test:`);

    // A conflict ran no gate: one line, exit 0, in the developer's clone (no log) and the drainer's (an empty one).
    for (const clone of [dev, ci]) {
      const conflict = ok(await land(clone.dir, ['log', c2 as string]));
      expect(conflict.stdout).toMatch(
        new RegExp(
          `^no gate ran with ${c2} in train \\S+: it failed \\(conflict\\): conflicts with main .* in shared\\.txt; .*\\(land why ${c2} tells the story\\)\\n$`,
        ),
      );
    }

    // A landed job's log is published with its landing push: `land log` works in any clone.
    const landedLog = ok(await land(dev.dir, ['log', c1 as string]));
    expect(landedLog.stdout).toContain('== gate test');

    // land why names the logs by the copies on this machine, never by the drainer's paths.
    const why = ok(await land(dev.dir, ['why', second as string])).stdout;
    expect(why).toContain(`log ${dev.dir}/.git/land/remote/origin/published/logs/${judging}.log`);
    expect(why).not.toContain(ci.dir);
    // So does land show (error, gate log, the cached gate's line).
    const show = ok(await land(dev.dir, ['show', second as string])).stdout;
    expect(show).toMatch(new RegExp(`^gate log +${dev.dir}/\\.git/land/remote/origin/published/logs/${judging}\\.log$`, 'm'));
    expect(show.split('\n').filter((line) => line.includes(ci.dir))).toEqual([]);
  });
});
