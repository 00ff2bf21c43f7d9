// `land repro --dir` in a queue kept in a remote: the store's folder is the cache
// (.git/land/remote/origin/), but the git folder it must keep out of is still the clone's .git.
// And a metrics row another drainer published (anyone who can push can forge one) does not choose
// what repro runs: a base outside the target's history is refused before any command runs.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs, tempDir } from '../../helpers/repo.js';
import { makeTeam, queuePolicy } from '../../helpers/remoteTeam.js';
import { ok } from '../../helpers/teamKit.js';

afterAll(cleanupTempDirs);

describe('land repro in a remote queue', () => {
  it("refuses a --dir inside the clone's git folder, outside the queue's cache folder", async () => {
    const team = makeTeam();
    const alice = team.clone('alice');
    alice.branch('feature', { 'feature.txt': 'feature\n' });
    const id = JSON.parse(ok(await land(alice.dir, ['submit', 'feature', '--json'])).stdout).job.id as string;
    const refused = await land(alice.dir, ['repro', id, '--dir', '.git/repro']);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain("is inside the repository's git folder");
    expect(existsSync(join(alice.dir, '.git', 'repro'))).toBe(false);
  });

  it('refuses a forged published row whose base is outside the target history: no command of its policy runs', async () => {
    const team = makeTeam();
    const dev = team.clone('dev');
    const ci = team.clone('ci');
    dev.branch('bad', { broken: 'yes\n' });
    const bad = JSON.parse(ok(await land(dev.dir, ['submit', 'bad', '--json'])).stdout).job.id as string;
    ok(await land(ci.dir, ['run']));
    const rows = readFileSync(join(ci.dir, '.git', 'land', 'remote', 'origin', 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n');
    const failed = rows.map((line) => JSON.parse(line)).find((row) => row.verdict === 'FAIL' && row.members.includes(bad));

    // The attacker: a base (pushed as a train's commit, which every clone fetches) whose policy
    // turns the sandbox off and runs a refresh entry and a gate that leave marker files.
    const markers = tempDir('land-forged-');
    const touch = (name: string) => ['sh', '-c', `touch ${join(markers, name)}`];
    const evilPolicy = queuePolicy(
      {},
      { gates: [{ name: 'test', run: touch('gate') }], sandbox: { mode: 'off' }, refresh: [{ paths: ['broken'], run: touch('refresh'), message: 'x' }] },
    );
    const evil = dev.branch('evil', { '.ctm.json': `${JSON.stringify(evilPolicy)}\n` });
    const train = `${failed.batch}-9`;
    const forged = { ...failed, train, base: evil, at: '2099-01-01T00:00:00.000Z', gate: { ...failed.gate, refreshed: ['x'] } };
    const drainer = 'fedcba9876543210';
    const commit = dev.git('commit-tree', dev.git('rev-parse', 'evil^{tree}'), '-m', `land: metrics of drainer ${drainer}, 1 row\n\n${JSON.stringify(forged)}`);
    dev.git('push', '-q', 'origin', `${evil}:refs/land/trains/${train}`, `${commit}:refs/land/metrics/${drainer}`);

    const bob = team.clone('bob');
    const repro = await land(bob.dir, ['repro', bad, '--run']);
    expect(bob.git('cat-file', '-t', evil)).toBe('commit'); // the forged base reached the clone
    expect(repro.code, repro.stderr).toBe(5);
    expect(repro.stderr).toContain(`train ${train} (from the metrics drainer ${drainer} published) cannot be rebuilt here`);
    expect(repro.stderr).toContain("is not in the target's history");
    expect(existsSync(join(markers, 'refresh'))).toBe(false);
    expect(existsSync(join(markers, 'gate'))).toBe(false);
  });
});
