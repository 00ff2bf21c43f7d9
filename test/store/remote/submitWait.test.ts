// `land submit --wait` in a queue kept in a remote: the submitting clone sees its job land by
// another clone's drainer (its wait fetches the queue as it polls), and exits 0.
import { land, startLand } from '../../helpers/cli.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { makeTeam, queuePolicy } from '../../helpers/remoteTeam.js';
import { waitUntil } from '../../helpers/wait.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ok, serverRefs } from '../../helpers/teamKit.js';

afterAll(cleanupTempDirs);

describe('land submit --wait in a remote queue', () => {
  it("returns 0 once another clone's drainer landed the job", async () => {
    const team = makeTeam();
    const alice = team.clone('alice');
    const ci = team.clone('ci');
    const tip = alice.branch('feature', { 'feature.txt': 'feature\n' });
    const waiting = startLand(alice.dir, ['submit', 'feature', '--wait', '--timeout', '60']);
    await waitUntil('the job on the remote', () => [...serverRefs(team).keys()].some((ref) => ref.startsWith('refs/land/jobs/')));
    const run = ok(await land(ci.dir, ['run', '--json'], { timeoutMs: 60_000 }));
    expect(run.lines().filter((event) => event.type === 'landed')).toHaveLength(1);
    const result = await waiting.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`: landed in main at ${team.server('rev-parse', 'main').slice(0, 12)}$`, 'm'));
    // The landing is on the server's main, done by ci's drainer, not by alice's clone.
    expect(team.server('merge-base', '--is-ancestor', tip, 'main')).toBe('');
  }, 120_000);

  it('gives up at its --timeout even when the queue is fetched less often (exit 9, the job stays queued)', async () => {
    const team = makeTeam({ policy: queuePolicy({ pollSeconds: 30 }) });
    const alice = team.clone('alice');
    alice.branch('feature', { 'feature.txt': 'feature\n' });
    const started = Date.now();
    const result = await land(alice.dir, ['submit', 'feature', '--wait', '--timeout', '1']);
    expect(result.code, result.stderr).toBe(9);
    expect(result.stderr).toMatch(/is still queued after 1s/);
    // Not one pollSeconds (30 s) late: the wait ends at its deadline.
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);
});
