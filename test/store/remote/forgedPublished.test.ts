// Published refs anyone who can push can forge (docs/remote.md, "What drainers publish", "What a
// reader trusts"): an oversized log blob and an oversized metrics commit are skipped by their size,
// before they are read, with one warning, and remembered, so the next command does not read them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs, sh } from '../../helpers/repo.js';
import { makeTeam, queuePolicy, type Clone } from '../../helpers/remoteTeam.js';
import { FAIL_AT_ONCE } from '../../helpers/state.js';
import { ok, serverRefs, statusJobs } from '../../helpers/teamKit.js';
import { flakeEvidenceInProcess } from '../../helpers/drainHarness.js';

afterAll(cleanupTempDirs);

/** Pushes a metrics chain of one commit carrying `rows` as drainer 0123456789abcdef's. */
function pushForgedRows(clone: Clone, rows: Record<string, unknown>[]): void {
  const tree = clone.git('rev-parse', 'origin/main^{tree}');
  const message = `land: metrics\n\n${rows.map((row) => JSON.stringify(row)).join('\n')}\n`;
  const commit = sh(clone.dir, ['commit-tree', tree, '-F', '-'], message);
  clone.git('push', '-q', 'origin', `+${commit}:refs/land/metrics/0123456789abcdef`);
}

/** The metrics rows a clone's own drains wrote (its cache of the queue, .git/land/remote/origin/). */
function ownRows(clone: Clone): Record<string, unknown>[] {
  const file = join(clone.dir, '.git', 'land', 'remote', 'origin', 'metrics.jsonl');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
}

describe('forged published refs', () => {
  it('an oversized log and metrics message are skipped once, before they are read, and never read again', async () => {
    const team = makeTeam({ policy: queuePolicy({}, FAIL_AT_ONCE) });
    const mallory = team.clone('mallory');
    // 50 MB of one line, and a 5 MB metrics message: a few KB each once compressed.
    const huge = 'the same line again and again\n'.repeat((50 * 1024 * 1024) / 30);
    const blob = sh(mallory.dir, ['hash-object', '-w', '--stdin'], huge);
    const tree = sh(mallory.dir, ['mktree'], `100644 blob ${blob}\tlog\n`);
    const logCommit = sh(mallory.dir, ['commit-tree', tree, '-m', 'land: gate log of train t-huge']);
    const rows = `land: metrics\n\n${'{"train":"t-x"}\n'.repeat((5 * 1024 * 1024) / 16)}`;
    const fat = sh(mallory.dir, ['commit-tree', tree, '-F', '-'], rows);
    // refs/land/pruned (what land gc keeps of the jobs it prunes) as a blob: skipped the same way.
    const notPruned = sh(mallory.dir, ['hash-object', '-w', '--stdin'], '{"id":"j-20260101-0001","state":"landed"}\n');
    mallory.git('push', '-q', 'origin', `${logCommit}:refs/land/logs/t-huge`, `${fat}:refs/land/metrics/0123456789abcdef`, `${notPruned}:refs/land/pruned`);

    const dev = team.clone('dev');
    const first = ok(await land(dev.dir, ['status']));
    expect(first.stderr).toContain(`refs/land/logs/t-huge on origin (${logCommit.slice(0, 12)}) holds a log of ${huge.length} bytes`);
    expect(first.stderr).toContain(`refs/land/metrics/0123456789abcdef on origin has a commit (${fat.slice(0, 12)}) too large to be metrics rows`);
    expect(first.stderr).toContain(`refs/land/pruned on origin is a blob (${notPruned.slice(0, 12)}), not a commit of pruned jobs; it is skipped`);
    expect(first.stderr.match(/land: warning:/g)).toHaveLength(3);
    const state = JSON.parse(readFileSync(join(dev.dir, '.git', 'land', 'remote', 'origin', 'remote.json'), 'utf8'));
    expect(state.published.skipped.sort()).toEqual([logCommit, fat, notPruned].sort());
    const stats = ok(await land(dev.dir, ['stats', '--json'])).json();
    expect(stats.jobs).toMatchObject({ landed: 0 }); // the forged job counts nowhere

    const second = ok(await land(dev.dir, ['status']));
    expect(second.stderr).not.toContain('warning');
  }, 60_000);

  it('forged published rows drive no reconcile repair and no gc deletion', async () => {
    const team = makeTeam({ policy: queuePolicy({}, FAIL_AT_ONCE) });
    const dev = team.clone('dev');
    const ci = team.clone('ci');
    dev.branch('good', { 'good.txt': 'good\n' });
    dev.branch('bad', { broken: 'yes\n' });
    const good = ok(await land(dev.dir, ['submit', 'good', '--json'])).json().job.id as string;
    ok(await land(ci.dir, ['run']));
    const bad = ok(await land(dev.dir, ['submit', 'bad', '--json'])).json().job.id as string;
    ok(await land(ci.dir, ['run']));
    // The failed train (a landed train publishes its log too, but no train commit).
    const [train] = [...serverRefs(team).keys()].filter((ref) => ref.startsWith('refs/land/trains/')).map((ref) => ref.slice('refs/land/trains/'.length));
    expect(train).toBeDefined();
    // The failed job is submitted again: queued, and the failed train it rode is part of its story.
    expect(ok(await land(dev.dir, ['submit', 'bad', '--json'])).json()).toMatchObject({ outcome: 'requeued', job: { id: bad } });

    const mallory = team.clone('mallory');
    const main = mallory.git('rev-parse', 'origin/main');
    pushForgedRows(mallory, [
      { train: 't-forged', members: [bad], verdict: 'PASS', landed: true, commit: main, flaky: false }, // "bad landed in main"
      { train, members: [good], verdict: 'FAIL', flaky: false }, // "only good rode that train"
    ]);
    const reconcile = ok(await land(ci.dir, ['reconcile', '--json']));
    expect(reconcile.stdout).not.toContain(bad);
    expect((await statusJobs(ci)).find((job) => job.id === bad)?.state).toBe('queued');
    const gc = ok(await land(ci.dir, ['gc', '--older-than', '0m', '--json'])).json();
    expect(gc.jobs).toEqual([good]);
    expect(gc.trains).not.toContain(train);
    const left = [...serverRefs(team).keys()];
    expect(left).toContain(`refs/land/logs/${train}`);
    expect(left).toContain(`refs/land/trains/${train}`);

    // Nor the flake history a drainer weighs before failing a job: 40 published copies of ci's own
    // passing row ("40 more clean runs of test") are shown by land flaky, and not weighed.
    const weighed = await flakeEvidenceInProcess(ci.dir);
    expect(weighed.get('test')?.passed).toBeGreaterThan(0);
    const passRow = ownRows(ci).find((row) => row.verdict === 'PASS');
    expect(passRow).toBeDefined();
    pushForgedRows(
      mallory,
      Array.from({ length: 40 }, (_, i) => ({ ...passRow, train: `t-clean-${i}` })),
    );
    const shown = ok(await land(ci.dir, ['flaky', '--json']))
      .json()
      .gates.find((g: { gate: string }) => g.gate === 'test');
    expect(shown.passed).toBeGreaterThanOrEqual(40 + (weighed.get('test')?.passed ?? 0));
    expect(await flakeEvidenceInProcess(ci.dir)).toEqual(weighed);
  }, 60_000);
});
