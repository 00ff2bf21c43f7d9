// A stale clone after `land gc` in another (docs/remote.md, "A clone that was away during land gc"):
// the jobs gc pruned are gone from its status too, a command naming one answers "no such job" and
// pushes nothing, its drainer recreates no ref and never moves seq back, and its next submission
// gets an id no job ever had, even one it never saw.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { makeTeam } from '../../helpers/remoteTeam.js';
import { ok, serverRefs, statusJobs } from '../../helpers/teamKit.js';
import { idAfter } from '../../../lib/store/activeIndex.js';

afterAll(cleanupTempDirs);

/** The server's job, head and seq refs: what a stale clone must never move. */
function queueRefs(refs: Map<string, string>): [string, string][] {
  return [...refs].filter(([ref]) => /^refs\/land\/(jobs\/|heads\/|seq$)/.test(ref)).sort();
}

describe('a stale clone after land gc in another clone', () => {
  it('drops the pruned jobs, recreates no ref and gives out no id twice', async () => {
    const team = makeTeam();
    const alice = team.clone('alice');
    const bob = team.clone('bob');
    const ci = team.clone('ci');
    alice.branch('bad', { broken: 'yes\n' });
    alice.branch('good', { 'good.txt': 'good\n' });
    const bad = ok(await land(alice.dir, ['submit', 'bad', '--json'])).json().job.id as string;
    // bob fetches while `bad` is queued, then goes away; `good` is one he never sees.
    expect((await statusJobs(bob)).map((job) => [job.id, job.state])).toEqual([[bad, 'queued']]);
    const good = ok(await land(alice.dir, ['submit', 'good', '--json'])).json().job.id as string;
    ok(await land(ci.dir, ['run']));
    ok(await land(ci.dir, ['gc', '--older-than', '0m']));
    // Every log of the drainer went with its jobs: the trains' and the target check's (strayLogs.ts).
    expect(readdirSync(join(ci.dir, '.git', 'land', 'remote', 'origin', 'logs'))).toEqual([]);
    const before = queueRefs(serverRefs(team));
    expect(before.map(([ref]) => ref)).toEqual(['refs/land/seq']);

    expect(await statusJobs(bob)).toEqual([]);
    for (const command of [
      ['cancel', bad],
      ['show', bad],
    ]) {
      const gone = await land(bob.dir, command);
      expect(gone.code, gone.stderr).toBe(4);
      expect(gone.stderr).toContain('pruned by land gc');
    }
    // The clone that saw it fail still tells its story, and changes nothing either.
    const told = await land(ci.dir, ['cancel', bad]);
    expect(told.code, told.stderr).toBe(5);
    expect(told.stderr).toContain('already failed');
    ok(await land(bob.dir, ['run']));
    expect(queueRefs(serverRefs(team))).toEqual(before);

    bob.branch('next', { 'next.txt': 'next\n' });
    const next = ok(await land(bob.dir, ['submit', 'next', '--json'])).json().job.id as string;
    expect(idAfter(next, good) && idAfter(next, bad), `${next} after ${good}`).toBe(true);
    expect(serverRefs(team).has(`refs/land/jobs/${next}`)).toBe(true);
    expect(team.server('cat-file', '-p', 'refs/land/seq:last')).toBe(next);
  });
});
