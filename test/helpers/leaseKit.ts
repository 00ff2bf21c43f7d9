// Helpers of the drain-lease tests (lease.test.ts, leaseFaults.test.ts). The drain lease of a queue kept in a remote, end to end: several drainers on separate clones
// (separate hosts) at once, a holder killed (kill -9, mid-gate and around the landing's push), a
// holder paused past its lease (SIGSTOP), a holder alive through a gate longer than its lease, and
// `land run --watch` polling the remote. Real git (file://), the built CLI. The lease lasts 4 s
// (test/helpers/remoteTeam.ts) where a live holder must keep it, 2 s where a dead or paused one is taken
// over (a takeover costs that much waiting).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { FIXTURES, land, startLand } from './cli.js';
import { trackStray } from './procs.js';
import { tempDir } from './repo.js';
import { makeTeam, queuePolicy, type Clone, type Team } from './remoteTeam.js';

export interface LeaseTeam {
  team: Team;
  /** The file whose existence keeps a gate of a drainer started with `hold` waiting. */
  hold: string;
  /** The gate runs so far: drainer name, gate pid, members. */
  gateRuns(): { drainer: string; pid: number; members: string[] }[];
}

/** A team whose gate notes each run and, in a drainer started with `hold`, waits while the hold file exists. */
export function leaseTeam(queue: Record<string, unknown> = {}): LeaseTeam {
  const scratch = tempDir('land-lease-');
  const log = join(scratch, 'gate-runs.txt');
  const gate = { name: 'test', run: ['sh', join(FIXTURES, 'gates', 'lease-hold.sh')], timeoutSeconds: 60, env: { GATE_LOG: log } };
  const team = makeTeam({ policy: queuePolicy(queue, { gates: [gate], batch: { max: 8 } }) });
  const hold = join(scratch, 'hold');
  writeFileSync(hold, '');
  const gateRuns = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => {
            const [drainer, pid, ...members] = line.split(' ');
            trackStray(Number(pid));
            return { drainer: drainer as string, pid: Number(pid), members: members.flatMap((m) => m.split(',')).filter(Boolean) };
          })
      : [];
  return { team, hold, gateRuns };
}

/** `land run` in `clone`, named `name` in the gate log; with `hold`, its gates wait while the hold file exists. */
export function drainer(clone: Clone, name: string, opts: { args?: string[]; hold?: string; failpoint?: string } = {}) {
  const run = startLand(clone.dir, ['run', ...(opts.args ?? [])], {
    env: { LAND_TEST_DRAINER: name, LAND_TEST_HOLD: opts.hold, LAND_FAILPOINT: opts.failpoint },
  });
  if (run.child.pid) trackStray(run.child.pid);
  return run;
}

/** Branches n1..nk from the server's main in `clone`, each adding its own file, submitted together; their ids. */
export async function submit(clone: Clone, names: readonly string[]): Promise<string[]> {
  for (const name of names) clone.branch(name, { [`${name}.txt`]: `${name}\n` });
  const result = await land(clone.dir, ['submit', ...names, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return result.lines().map((line) => line.job.id as string);
}

/** lease.json as the server has it now. */
export function serverLease(team: Team): { holder: string; pid: number; epoch: number; released: boolean } {
  return JSON.parse(team.server('show', 'refs/land/lease:lease.json'));
}

/**
 * The jobs each first-parent commit of the server's main since `base` landed: a train merge's
 * Land-Job trailer(s), or the job whose tip main was fast-forwarded to. Sorted.
 */
export function landedOnServer(team: Team, base: string, tips: Map<string, string>): string[] {
  const log = team.server('log', '--first-parent', '--format=%H %(trailers:key=Land-Job,valueonly,separator=%x2C)', `${base}..main`);
  return log
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      const [sha, trailer] = line.split(' ');
      return trailer ? trailer.split(',') : [tips.get(sha as string) ?? `unexpected ${sha}`];
    })
    .sort();
}

export interface Job {
  id: string;
  state: string;
  tip: string;
}

/** A job's record as the server has it (no CLI run: a git read of refs/land/jobs/<id>). */
export function serverJob(team: Team, id: string): Job {
  return JSON.parse(team.server('show', `refs/land/jobs/${id}:record.json`));
}

/** A job's record in `clone`'s cache of the queue. */
export function cachedJob(clone: Clone, id: string): Job {
  return JSON.parse(readFileSync(join(clone.dir, '.git', 'land', 'remote', 'origin', 'jobs', `${id}.json`), 'utf8'));
}

/** The shortest lease there is, for the tests where a holder dies or is paused. */
export const SHORT = { leaseSeconds: 2 };

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The epochs of refs/land/lease's chain on the server, oldest first: each push on it had a lease on
 * the value before, so a drainer taken over never added a commit after its successor's.
 */
export function leaseEpochs(team: Team): number[] {
  const subjects = team.server('log', '--first-parent', '--reverse', '--format=%s', 'refs/land/lease').split('\n');
  return subjects.map((subject) => Number(/ epoch (\d+) /.exec(subject)?.[1]));
}

/** Each job's record on the server says landed, and its merge is in the server's main exactly once; nothing else landed since `base`. */
export function landedOnce(team: Team, base: string, ids: readonly string[]): void {
  const jobs = ids.map((id) => serverJob(team, id));
  for (const job of jobs) expect(job.state, job.id).toBe('landed');
  expect(landedOnServer(team, base, new Map(jobs.map((job) => [job.tip, job.id])))).toEqual([...ids].sort());
}

/** Records, journal and git agree in `clone`'s cache: nothing for reconcile to repair. */
export async function reconciled(clone: Clone): Promise<void> {
  const check = await land(clone.dir, ['reconcile', '--check', '--json']);
  expect(check.code, check.stdout + check.stderr).toBe(0);
  expect(check.json()).toMatchObject({ disagreements: 0 });
}

/** The summary line of a `land run --json`. */
export function summaryOf(stdout: string): { landed: string[]; contained: string[]; stopped: unknown } {
  const lines = stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
  return lines.find((line) => line.type === 'summary');
}
