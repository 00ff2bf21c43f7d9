// Builders for drain tests: a repository whose policy runs a fixture gate, branches that each add
// one file (a culprit adds a culprit-* file the counted gate fails on), and readers of the gate's
// own run counter.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, land } from './cli.js';
import type { JobRecord } from '../../lib/store/index.js';
import { fastBranchable, fastCommits, makeRepo, tempDir, type TestRepo } from './repo.js';
import { allJobsInProcess, submitInProcess } from './drainHarness.js';

export interface GateSetup {
  script: string;
  env?: Record<string, string>;
  timeoutSeconds?: number;
}

export interface QueueRepo extends TestRepo {
  counter: string;
  scratch: string;
  gateRuns(): number;
  gateLines(): string[];
}

export function gateScript(name: string): string {
  return join(FIXTURES, 'gates', name);
}

export function makeQueueRepo(opts: { gate?: GateSetup; batch?: Record<string, unknown>; policy?: Record<string, unknown> } = {}): QueueRepo {
  const scratch = tempDir('land-scratch-');
  const counter = join(scratch, 'gate-runs.txt');
  const gate = opts.gate ?? { script: 'counted.sh' };
  const repo = makeRepo({
    policy: {
      target: 'main',
      gates: [
        {
          name: 'test',
          run: ['sh', gateScript(gate.script)],
          timeoutSeconds: gate.timeoutSeconds ?? 60,
          env: { GATE_COUNTER: counter, ...gate.env },
        },
      ],
      batch: { max: 8, ...opts.batch },
      ...opts.policy,
    },
  });
  const gateLines = () =>
    existsSync(counter)
      ? readFileSync(counter, 'utf8')
          .split('\n')
          .filter((l) => l.trim() !== '')
      : [];
  return Object.assign(repo, { counter, scratch, gateLines, gateRuns: () => gateLines().length });
}

/** Creates and submits `n` branches b1..bn, each adding its own file; culprits add culprit-<i>. */
export async function submitBranches(repo: TestRepo, n: number, culprits: readonly number[] = [], prefix = 'b'): Promise<string[]> {
  const ids: string[] = [];
  const names = Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);
  const fileOf = (i: number) => (culprits.includes(i) ? `culprit-${i}` : `file-${prefix}${i}.txt`);
  if (fastBranchable(repo.dir, ...names)) {
    // All branches in one fast-import: the same commits repo.branch makes, one git process.
    fastCommits(
      repo.dir,
      names.map((name, i) => ({ ref: `refs/heads/${name}`, message: `change on ${name}`, files: { [fileOf(i + 1)]: `${name}\n` }, from: 'main' })),
    );
  } else {
    for (const [i, name] of names.entries()) repo.branch(name, { [fileOf(i + 1)]: `${name}\n` });
  }
  // Submitted in this process (what `land submit` calls): the submission is not what these tests
  // check (test/cli/submit.test.ts does, through the CLI), so no Node start is spent on it.
  ids.push(...(await submitInProcess(repo.dir, names)));
  return ids;
}

/** A job as `land status --all --json` lists it: its record, its place in the queue and its eta. */
export type StatusJob = JobRecord & { position: number | null; eta: number | null };

/** Looks a job up by id; an id that was not listed fails the test, naming it. */
export interface JobsById<Job extends JobRecord = JobRecord> {
  get(id: string | undefined): Job;
  /** Every listed job, in landing order. */
  values(): IterableIterator<Job>;
}

function byId<Job extends JobRecord>(listed: readonly Job[], source: string): JobsById<Job> {
  const jobs = new Map(listed.map((job) => [job.id, job]));
  return {
    get(id) {
      const job = id === undefined ? undefined : jobs.get(id);
      if (!job) throw new Error(`${source} lists no job ${String(id)} (it lists ${[...jobs.keys()].join(', ') || 'none'})`);
      return job;
    },
    values: () => jobs.values(),
  };
}

/**
 * Every job record in the state folder, in landing order (what `land status --all` lists), read in
 * this process: the records are the evidence these tests check, not the command that prints them.
 */
export async function jobsById(repo: TestRepo): Promise<JobsById> {
  return byId(await allJobsInProcess(repo.dir), 'the state folder');
}

/** The same through `land status --all --json`: for the fault tests, where the CLI reading the state a kill left is part of the check. */
export async function statusJobsById(repo: TestRepo): Promise<JobsById<StatusJob>> {
  const status = await land(repo.dir, ['status', '--all', '--json']);
  return byId(status.json<{ jobs: StatusJob[] }>().jobs, 'land status --all --json');
}

/** Land-Job trailers of the target's first-parent merges, oldest first. */
export function landedOrder(repo: TestRepo): string[] {
  const log = repo.git('log', '--first-parent', '--reverse', '--format=%(trailers:key=Land-Job,valueonly,separator=%x2C)', 'main');
  return log
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}
