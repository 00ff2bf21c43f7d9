import { land, startLand } from '../../helpers/cli.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { makeTeam, queuePolicy, type Clone } from '../../helpers/remoteTeam.js';
import { FAIL_AT_ONCE } from '../../helpers/state.js';
import { afterAll, describe, expect, it } from 'vitest';
import { type Job, serverRefs, statusJobs, ok } from '../../helpers/teamKit.js';

afterAll(cleanupTempDirs);

describe('a team around one remote queue', () => {
  it('takes 40 submissions from two clones at once in server order; a fresh clone lands them all', async () => {
    const team = makeTeam({ policy: queuePolicy({}, { batch: { max: 40 }, ...FAIL_AT_ONCE }) });
    const devs = [team.clone('alice'), team.clone('bob')];
    const branches = devs.map((dev, d) =>
      Array.from({ length: 20 }, (_, i) => {
        const name = `${d === 0 ? 'a' : 'b'}${i + 1}`;
        return { dev, name, tip: dev.branch(name, { [`${name}.txt`]: `${name}\n` }) };
      }),
    );
    const all = branches.flat();
    // All 40 `land submit` processes are started before any is awaited.
    const runs = all.map((b) => startLand(b.dev.dir, ['submit', b.name, '--json']));
    const results = await Promise.all(runs.map((run) => run.done));
    const jobs = results.map((result, i) => {
      expect(result.code, `${all[i]?.name}: ${result.stderr}`).toBe(0);
      const parsed = JSON.parse(result.stdout);
      expect(parsed.outcome).toBe('created');
      return parsed.job as Job;
    });
    const ids = jobs.map((job) => job.id).sort();
    // Each day's ids count from 0001 without a gap (a run across midnight UTC starts the next day's).
    const days = new Map<string, string[]>();
    for (const id of ids) days.set(id.split('-')[1] as string, [...(days.get(id.split('-')[1] as string) ?? []), id]);
    for (const [day, ofDay] of days) {
      expect(ofDay).toEqual(Array.from({ length: ofDay.length }, (_, i) => `j-${day}-${String(i + 1).padStart(4, '0')}`));
    }
    expect(ids).toHaveLength(40);
    expect(new Set(jobs.map((job) => job.branch)).size).toBe(40);
    for (const [i, job] of jobs.entries()) expect(job.tip).toBe(all[i]?.tip);

    // Queue order is id order, the same from either clone and from one that submitted nothing.
    const watcher = team.clone('watcher');
    for (const clone of [devs[1] as Clone, watcher]) {
      const queued = await statusJobs(clone, false);
      expect(queued.map((job) => job.id)).toEqual(ids);
    }
    const refs = serverRefs(team);
    for (const job of jobs) {
      expect(refs.has(`refs/land/jobs/${job.id}`), job.id).toBe(true);
      expect(refs.get(`refs/land/heads/${job.id}`)).toBe(job.tip);
    }
    // The server took the creations one at a time, in id order: the seq chain names each id once.
    const seq = team.server('log', '--first-parent', '--reverse', '--format=%s', 'refs/land/seq').split('\n');
    expect(seq).toEqual(ids.map((id) => `land: seq ${id}`));

    // A CI runner: a fresh clone drains the whole queue.
    const before = team.server('rev-parse', 'main');
    const ci = team.clone('ci');
    const run = ok(await land(ci.dir, ['run', '--json'], { timeoutMs: 100_000 }));
    const landedEvents = run.lines().filter((e) => e.type === 'landed');
    expect(landedEvents.flatMap((e) => e.members).sort()).toEqual(ids);
    const main = team.server('rev-parse', 'main');
    expect(landedEvents.at(-1).commit).toBe(main);
    // main's first-parent history since the drain began is exactly one merge per job, each
    // bringing in that job's tip (or the tip itself for a fast-forward), and ends at each landing.
    const firstParents = team.server('log', '--first-parent', '--format=%H %P', `${before}..${main}`).split('\n').reverse();
    const brought = firstParents.map((line) => {
      const [commit, , second] = line.split(' ');
      return second ?? commit;
    });
    expect(brought.sort()).toEqual(jobs.map((job) => job.tip).sort());
    const heads = firstParents.map((line) => line.split(' ')[0]);
    for (const event of landedEvents) expect(heads).toContain(event.commit);
    for (const job of jobs) expect(team.server('merge-base', '--is-ancestor', job.tip, main)).toBe('');
    // Nothing but the jobs' files came in.
    const files = team.server('diff', '--name-only', before, main).split('\n').sort();
    expect(files).toEqual(all.map((b) => `${b.name}.txt`).sort());

    const seen = await statusJobs(devs[0] as Clone);
    expect(seen.map((job) => [job.id, job.state]).sort()).toEqual(ids.map((id) => [id, 'landed']));
    ok(await land(ci.dir, ['reconcile', '--check', '--json']));
  }, 300_000);
});
