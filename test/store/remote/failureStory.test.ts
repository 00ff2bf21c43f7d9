// The failure story from any clone (docs/remote.md, "What drainers publish"): a job failed by the
// drainer in one clone is told, logged, reproduced and counted in another clone, which never ran
// a gate; forged published refs are skipped with a warning, never a failed command. A job cleared by
// the train behind it (flaky.clearing) lands in the same push and is told the same way.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { gateScript } from '../../helpers/queue.js';
import { cleanupTempDirs, tempDir } from '../../helpers/repo.js';
import { makeTeam, queuePolicy } from '../../helpers/remoteTeam.js';
import { ok, serverRefs } from '../../helpers/teamKit.js';

afterAll(cleanupTempDirs);

describe('a remote queue publishes its failed trains, logs and metrics', () => {
  it("a developer's clone reads the failure a CI clone's drainer judged", async () => {
    const team = makeTeam();
    const dev = team.clone('dev');
    const ci = team.clone('ci');
    dev.branch('bad', { broken: 'yes\n' });
    dev.branch('good', { 'good.txt': 'good\n' });
    const ids = ok(await land(dev.dir, ['submit', 'bad', 'good', '--json']))
      .lines()
      .map((line) => line.job.id as string);
    const bad = ids[0] as string;
    ok(await land(ci.dir, ['run']));

    // What the server holds: the drainer's metrics ref, and the failed train's log and commit.
    const refs = [...serverRefs(team).keys()];
    const metricsRefs = refs.filter((ref) => ref.startsWith('refs/land/metrics/'));
    expect(metricsRefs).toHaveLength(1);
    // Every row, the last landing's too (its row rode the push that released the lease).
    const published = team
      .server('log', '--format=%B', metricsRefs[0] as string)
      .split('\n')
      .filter((line) => line.startsWith('{'));
    const own = readFileSync(join(ci.dir, '.git', 'land', 'remote', 'origin', 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(published.map((line) => JSON.parse(line).train).sort()).toEqual(own.map((line) => JSON.parse(line).train).sort());
    const logRefs = refs.filter((ref) => ref.startsWith('refs/land/logs/'));
    expect(logRefs.length).toBeGreaterThan(0);
    // Each failed train's commit and log, and the log of the train that landed `good` (its landing push carried it).
    const trainRefs = refs.filter((ref) => ref.startsWith('refs/land/trains/'));
    expect(trainRefs.length).toBeGreaterThan(0);
    expect(logRefs).toEqual(expect.arrayContaining(trainRefs.map((ref) => ref.replace('/trains/', '/logs/'))));
    expect(logRefs).toHaveLength(trainRefs.length + 1);

    const log = ok(await land(dev.dir, ['log', bad]));
    expect(log.stdout).toContain('== gate test');
    const why = ok(await land(dev.dir, ['why', bad]));
    expect(why.stdout).toContain('test');
    const stats = ok(await land(dev.dir, ['stats', '--json'])).json();
    expect(stats.gates.length).toBeGreaterThan(0);
    expect(stats.gates[0].runs).toBeGreaterThan(0);
    // The window a developer sees is the drainer's (a failed train shrank it), not this clone's default.
    const drainers = ok(await land(ci.dir, ['window', '--json'])).json();
    expect(drainers.from).toBe('here');
    const seen = ok(await land(dev.dir, ['window', '--json'])).json();
    expect(seen).toMatchObject({ from: 'drainer', size: drainers.size });
    expect(seen.size).toBeLessThan(seen.max);
    expect(stats.window).toMatchObject({ now: drainers.size, from: 'drainer' }); // land stats too, not "never set"
    expect(ok(await land(dev.dir, ['status'])).stdout).toContain(`window ${drainers.size} (max ${seen.max}; the drainer's, after its last train)`);
    // A third clone that neither submitted nor drained: the train's commit (and so its member tips)
    // comes with the fetch of refs/land/trains/<train>.
    const bob = team.clone('bob');
    const repro = await land(bob.dir, ['repro', bad, '--run']);
    expect(repro.code, repro.stderr).toBe(5);
    expect(repro.stderr).toContain('the failure reproduced');
    expect(repro.stdout).toMatch(/from {6}the metrics drainer [0-9a-f]{16} published/); // another drainer's row, checked

    // Forged by a developer: a blob where a log belongs, lines that are not rows on a metrics ref.
    const blob = dev.git('rev-parse', 'good:good.txt');
    const tree = dev.git('rev-parse', 'good^{tree}');
    const junk = dev.git('commit-tree', tree, '-m', 'junk\n\nnot json\n{"train":1}');
    dev.git('push', '-q', 'origin', `${blob}:refs/land/logs/forged-1`, `${junk}:refs/land/metrics/0123456789abcdef`);
    const status = ok(await land(dev.dir, ['status', '--json']));
    expect(status.json().estimate.trainsMeasured).toBeGreaterThan(0); // the ETA's history: the drainer's trains
    expect(status.stderr).toContain('refs/land/logs/forged-1');
    expect(status.stderr).toContain('refs/land/metrics/0123456789abcdef');
    expect(ok(await land(dev.dir, ['stats', '--json'])).json().gates[0].runs).toBe(stats.gates[0].runs);

    // What stats shows, job figures included, before gc prunes every job (the time it was read aside).
    const figures = async (dir: string) => ({ ...ok(await land(dir, ['stats', '--json'])).json(), period: null });
    const before = await figures(dev.dir);
    expect(before.jobs).toMatchObject({ landed: 1, failed: 1 });

    // A developer's land gc prunes the finished jobs' refs; the trains are named by the drainer's
    // own rows only, so its land gc then prunes the trains whose members are all gone.
    const devGc = ok(await land(dev.dir, ['gc', '--older-than', '0m', '--json'])).json();
    expect(devGc.jobs.sort()).toEqual([...ids].sort());
    expect(devGc.trains).toEqual([]); // the drainer's logs and trains, published: not a developer's to delete
    expect(devGc.remoteRefs).toBe(ids.length * 2); // each job's record and tip deleted; refs/land/pruned made, not counted
    const afterDev = [...serverRefs(team).keys()];
    expect(afterDev.filter((ref) => /^refs\/land\/(jobs|heads)\//.test(ref))).toEqual([]);
    expect(afterDev.filter((ref) => /^refs\/land\/(trains|logs)\//.test(ref)).length).toBeGreaterThan(1);
    const gc = ok(await land(ci.dir, ['gc', '--older-than', '0m', '--json'])).json();
    expect(gc.jobs).toEqual([]);
    expect(gc.trains.length).toBeGreaterThan(0);
    const left = [...serverRefs(team).keys()];
    expect(left.filter((ref) => /^refs\/land\/(jobs|heads|trains)\//.test(ref))).toEqual([]);
    expect(left.filter((ref) => ref.startsWith('refs/land/logs/'))).toEqual(['refs/land/logs/forged-1']);
    expect(left.filter((ref) => ref.startsWith('refs/land/metrics/')).length).toBe(2); // history stays
    expect(ok(await land(dev.dir, ['status', '--all', '--json'])).json().jobs).toEqual([]);
    const gone = await land(dev.dir, ['log', bad]);
    expect(gone.code, gone.stderr).toBe(4);
    expect(gone.stderr).toContain('is gone');
    // The history outlives the records: the same figures in a clone that saw the jobs, in the one that ran gc, and in a fresh clone.
    expect(left).toContain('refs/land/pruned');
    expect(await figures(dev.dir)).toEqual(before);
    expect(await figures(ci.dir)).toEqual({ ...before, window: (await figures(ci.dir)).window });
    expect(await figures(team.clone('eve').dir)).toEqual(before);
  });
  it('optimistic clearing in a remote queue: both trains land in one push, and any clone tells the cleared job', async () => {
    const scratch = tempDir('land-team-gate-');
    const gate = {
      name: 'test',
      run: ['sh', gateScript('overlap.sh')],
      timeoutSeconds: 60,
      env: { GATE_COUNTER: join(scratch, 'runs.txt'), GATE_SCRATCH: scratch, GATE_REPO: scratch, GATE_SLEEP: '0.3' },
    };
    const team = makeTeam({ policy: queuePolicy({}, { gates: [gate], batch: { max: 1, parallel: 2 }, flaky: { clearing: true } }) });
    const dev = team.clone('dev');
    dev.branch('flaked', { 'flaked.txt': 'flaked\n' });
    dev.branch('good', { 'good.txt': 'good\n' });
    const [flaked, good] = ok(await land(dev.dir, ['submit', 'flaked', 'good', '--json']))
      .lines()
      .map((line) => line.job.id as string) as [string, string];
    writeFileSync(join(scratch, `flake-${flaked}`), '');
    const run = ok(await land(team.clone('ci').dir, ['run', '--json'])).lines();
    const cleared = run.find((event) => event.type === 'cleared');
    expect(cleared).toMatchObject({ members: [flaked] });
    const landed = run.filter((event) => event.type === 'landed');
    expect(landed).toEqual([expect.objectContaining({ train: cleared.by, members: [flaked, good] })]);
    // One push moved the server's main to the commit of the train behind, which holds the head's.
    expect(team.server('rev-parse', 'main')).toBe(landed[0].commit);
    expect(team.server('merge-base', '--is-ancestor', dev.tip('flaked'), 'main')).toBe('');
    const why = ok(await land(dev.dir, ['why', flaked]));
    expect(why.stdout).toContain(`train ${cleared.train} failed (gate test: exit 1), but train ${cleared.by}, built on it, passed`);
    expect(why.stdout).toContain('run void (cleared)');
  });
});
