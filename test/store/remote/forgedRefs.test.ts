// What a developer with push rights to the queue's refs can break, and what must survive: a job
// record rewritten to name a tree as its tip, one naming a commit nobody pushed, a job ref pushed
// as a blob, and a queued job's ref overwritten with a blob. A drain in another clone lands the
// good jobs (the overwritten one from the record it had read), fails the two records alone
// (bad_tip, pushed like any failure), skips the blob refs with a warning, and exits 0; the next
// drain and every other clone's commands are not stuck on them.
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs, sh } from '../../helpers/repo.js';
import { makeTeam, queuePolicy, type Clone } from '../../helpers/remoteTeam.js';
import { ok, statusJobs } from '../../helpers/teamKit.js';

afterAll(cleanupTempDirs);

/** A commit on top of job `id`'s ref whose record names `tip`: the push refspec that puts it there. */
function forgedRecord(clone: Clone, id: string, tip: string, more: Record<string, unknown> = {}): string {
  const parent = clone.git('rev-parse', `refs/forge/jobs/${id}`);
  const record = JSON.parse(clone.git('show', `${parent}:record.json`));
  const blob = sh(clone.dir, ['hash-object', '-w', '--stdin'], `${JSON.stringify({ ...record, tip, ...more }, null, 2)}\n`);
  const tree = sh(clone.dir, ['mktree'], `100644 blob ${blob}\trecord.json\n`);
  const commit = sh(clone.dir, ['commit-tree', tree, '-p', parent, '-m', `land: ${id} queued`]);
  return `${commit}:refs/land/jobs/${id}`;
}

describe('forged queue refs', () => {
  it('a record naming a tree or a commit nobody has fails alone; job refs that are blobs are skipped; the good jobs land', async () => {
    const team = makeTeam();
    const dev = team.clone('dev');
    const good = [dev.branch('good1', { 'good1.txt': '1\n' }), dev.branch('good2', { 'good2.txt': '2\n' })];
    dev.branch('evil1', { 'evil1.txt': 'e\n' });
    dev.branch('evil2', { 'evil2.txt': 'e\n' });
    const submitted = ok(await land(dev.dir, ['submit', 'good1', 'evil1', 'evil2', 'good2', '--json'])).lines();
    const [good1, evilTree, evilGhost, good2] = submitted.map((line) => line.job.id as string) as [string, string, string, string];

    const ci = team.clone('ci');
    ok(await land(ci.dir, ['status'])); // the drainer's clone has read every record once

    const mallory = team.clone('mallory');
    mallory.git('fetch', '-q', 'origin', '+refs/land/*:refs/forge/*');
    const tree = mallory.git('rev-parse', 'origin/main^{tree}');
    const ghost = mallory.branch('ghost', { 'ghost.txt': 'never pushed\n' });
    const blob = mallory.git('rev-parse', 'origin/main:README.md');
    const junkRef = 'refs/land/jobs/j-29991231-9999';
    const vandalized = `refs/land/jobs/${good2}`;
    mallory.git(
      'push',
      '-q',
      'origin',
      forgedRecord(mallory, evilTree, tree),
      forgedRecord(mallory, evilGhost, ghost),
      `${blob}:${junkRef}`,
      `+${blob}:${vandalized}`,
    );

    const run = await land(ci.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const summary = run.lines().at(-1);
    expect(summary.landed.sort()).toEqual([good1, good2].sort());
    expect(summary.failed.sort()).toEqual([evilTree, evilGhost].sort());
    for (const ref of [junkRef, vandalized]) {
      expect(run.stderr).toContain(`land: warning: ${ref} on origin is a blob (${blob.slice(0, 12)}), not a commit holding a job record; it is skipped\n`);
    }
    for (const tip of good) team.server('merge-base', '--is-ancestor', tip, 'main');
    // The failures are on the server, pushed like any other; no head ref was moved to the ghost.
    const onServer = (id: string) => JSON.parse(team.server('show', `refs/land/jobs/${id}:record.json`));
    expect(onServer(evilTree)).toMatchObject({ state: 'failed', reason: 'bad_tip', error: { message: `tip ${tree.slice(0, 12)} is a tree, not a commit` } });
    expect(onServer(evilGhost)).toMatchObject({ state: 'failed', reason: 'bad_tip' });
    expect(onServer(evilGhost).error.message).toMatch(/^tip [0-9a-f]{12} is not in this repository/);
    expect(team.server('rev-parse', `refs/land/heads/${evilGhost}`)).not.toBe(ghost);
    expect(team.server('rev-parse', junkRef)).toBe(blob);
    // The vandalized job landed from the record the drainer had read; its landing put the record's chain back.
    expect(onServer(good2)).toMatchObject({ state: 'landed' });

    const again = await land(ci.dir, ['run', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.lines().at(-1)).toMatchObject({ trains: 0, queued: [] });
    const seen = await statusJobs(dev);
    expect(
      seen
        .filter((job) => job.reason === 'bad_tip')
        .map((job) => job.id)
        .sort(),
    ).toEqual([evilTree, evilGhost].sort());
  });

  it('a seq or lease ref pushed as a blob is replaced by a new history: submits go on, and a drainer takes the lease once it stood unmoved', async () => {
    const team = makeTeam({ policy: queuePolicy({ leaseSeconds: 2, pollSeconds: 0.2 }) });
    const mallory = team.clone('mallory');
    const blob = mallory.git('rev-parse', 'origin/main:README.md');
    mallory.git('push', '-q', 'origin', `+${blob}:refs/land/seq`, `+${blob}:refs/land/lease`);

    const dev = team.clone('dev');
    const tip = dev.branch('after', { 'after.txt': 'a\n' });
    const [job] = ok(await land(dev.dir, ['submit', 'after', '--json'])).lines();
    expect(team.server('cat-file', '-t', 'refs/land/seq')).toBe('commit');
    expect(JSON.parse(team.server('show', `refs/land/jobs/${job.job.id}:record.json`))).toMatchObject({ state: 'queued' });

    const ci = team.clone('ci');
    const run = await land(ci.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines().at(-1).landed).toEqual([job.job.id]);
    team.server('merge-base', '--is-ancestor', tip, 'main');
    expect(team.server('cat-file', '-t', 'refs/land/lease')).toBe('commit');
  });

  it('a record forged as in_progress with the target as its train is not recovered as landed, nor does a train that is no commit stop recovery', async () => {
    const team = makeTeam();
    const dev = team.clone('dev');
    const tips = [dev.branch('f1', { 'f1.txt': '1\n' }), dev.branch('f2', { 'f2.txt': '2\n' })];
    const [one, two] = ok(await land(dev.dir, ['submit', 'f1', 'f2', '--json']))
      .lines()
      .map((line) => line.job.id as string) as [string, string];
    const mallory = team.clone('mallory');
    mallory.git('fetch', '-q', 'origin', '+refs/land/*:refs/forge/*');
    const main = mallory.git('rev-parse', 'origin/main');
    const nowhere = 'f'.repeat(40);
    mallory.git(
      'push',
      '-q',
      'origin',
      forgedRecord(mallory, one, tips[0] as string, { state: 'in_progress', train: main }),
      forgedRecord(mallory, two, tips[1] as string, { state: 'in_progress', train: nowhere }),
    );
    const ci = team.clone('ci');
    const run = await land(ci.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const recovered = run.lines().filter((event) => event.type === 'recovered');
    expect(recovered.map((event) => [event.job, event.to]).sort()).toEqual([
      [one, 'queued'],
      [two, 'queued'],
    ]);
    // Gated and landed as any queued job, by a train of their own.
    expect(run.lines().at(-1).landed.sort()).toEqual([one, two].sort());
    for (const tip of tips) team.server('merge-base', '--is-ancestor', tip, 'main');
  });
});
