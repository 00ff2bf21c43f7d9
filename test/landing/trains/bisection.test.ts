// Trains and bisection. End to end (the CLI, real git, the merges on main): a clean train of 8 and
// one culprit in the middle of 8. The other culprit positions are variants of the same decision
// (plan/trainPlan.ts's split, plan/settlement.ts): they run the real drain in this process
// (test/helpers/drainHarness.ts), with real git and the real gate, and assert the same facts.
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { jobsById, landedOrder, makeQueueRepo, submitBranches, type QueueRepo } from '../../helpers/queue.js';
import { runDrain, setWindowInProcess } from '../../helpers/drainHarness.js';
import { FAIL_AT_ONCE } from '../../helpers/state.js';
import { newDeterministicGate, simulateDrain } from '../../../lib/landing/plan/simulate.js';

afterAll(cleanupTempDirs);

interface Drained {
  repo: QueueRepo;
  ids: string[];
  jobs: (id: string | undefined) => { state: string; reason?: string | null; error?: { message: string } | null; train?: string | null };
  /** The run's events (`land run --json`'s lines before the summary), and its summary. */
  events: { type: string; cached?: boolean; verdict?: string }[];
  summary: unknown;
}

async function drainWithCulprits(n: number, culprits: number[]): Promise<Drained> {
  const repo = makeQueueRepo({ batch: { max: 16 } });
  const ids = await submitBranches(repo, n, culprits);
  expect((await land(repo.dir, ['window', '--set', String(n)])).code).toBe(0);
  const run = await land(repo.dir, ['run', '--json']);
  expect(run.code, run.stderr).toBe(0);
  const byId = await jobsById(repo);
  const lines = run.lines();
  return { repo, ids, jobs: (id) => byId.get(id), events: lines.slice(0, -1), summary: lines.at(-1) };
}

/**
 * The same as drainWithCulprits, with the window and the drain in this process, and a FAIL final at
 * once (as for a gate with a clean history): the variants' subject is the bisection; the CLI test
 * above keeps the default flaky rule and its confirming re-runs.
 */
async function drainInProcess(n: number, culprits: number[]): Promise<Drained> {
  const repo = makeQueueRepo({ batch: { max: 16 }, policy: FAIL_AT_ONCE });
  const ids = await submitBranches(repo, n, culprits);
  await setWindowInProcess(repo.dir, n, 16);
  const run = await runDrain(repo.dir);
  expect(run.summary.stopped).toBeNull();
  const byId = await jobsById(repo);
  return { repo, ids, jobs: (id) => byId.get(id), events: run.events, summary: run.summary };
}

/**
 * A single culprit at `position` of 8: failed alone, the 7 others landed, the gate runs the planner's
 * replay predicts (`newGate`: the default flaky rule from no history; else a FAIL final at once).
 */
async function checkSingleCulprit(position: number, drained: Drained, newGate: boolean): Promise<void> {
  const { repo, ids, jobs, events } = drained;
  // Before the culprit is failed alone, main itself is gated once unless its tree has a PASS on
  // record: here main's first tree was never gated, so a culprit isolated on it costs one run more.
  const targetChecks = events.filter((e) => e.type === 'checking_target').length;
  expect(targetChecks).toBe(position === 1 ? 1 : 0);
  const culprit = ids[position - 1] as string;
  expect(jobs(culprit).state).toBe('failed');
  expect(jobs(culprit).reason).toBe('gate');
  expect(jobs(culprit).error?.message).toMatch(/gate test: exit 1/);
  const others = ids.filter((id) => id !== culprit);
  for (const id of others) expect(jobs(id).state).toBe('landed');
  expect(landedOrder(repo)).toEqual(others);
  // Isolating the culprit takes at most ceil(log2 8) + 2 = 5 runs, and a new gate (no history)
  // confirms a lone FAIL with one more run of its tree (at position 4 the culprit is the first half
  // of a failed pair whose other job waits: that FAIL counts too; docs/drain.md#flaky-gates); the jobs
  // behind it then go through the window the recorded rate gives (docs/drain.md, the window):
  // pairs after a culprit among the first few jobs. The planner's replay (plan/simulate.ts, main's
  // own check and the flaky rule included) predicts the count exactly.
  const culprits = Array.from({ length: 8 }, (_, i) => i + 1 === position);
  const reruns = events.filter((e) => e.type === 'gate_rerun').length;
  expect(reruns).toBe(newGate ? 1 : 0);
  expect(repo.gateRuns()).toBe(simulateDrain(culprits, 8, newGate ? newDeterministicGate() : null).gateRuns);
  expect(repo.gateRuns()).toBeLessThanOrEqual(7 + targetChecks + reruns);
  expect(repo.git('ls-tree', '--name-only', 'main')).not.toContain(`culprit-${position}`);
  // Never the same tree twice but to confirm a FAIL: every gate run is a verdict not taken from the
  // cache (a confirming re-run included), or main's own check (a bisection half with the failed
  // train's tree, the last culprit alone, is a cached FAIL).
  const verdicts = events.filter((e) => e.type === 'verdict');
  expect(repo.gateRuns()).toBe(verdicts.filter((v) => !v.cached).length + targetChecks);
  if (position === 8) expect(verdicts.some((v) => v.cached && v.verdict === 'FAIL')).toBe(true);
}

describe('land run: trains and bisection', () => {
  it('lands 8 clean jobs with one gate run and 8 merges in queue order', async () => {
    const { repo, ids, jobs, summary } = await drainWithCulprits(8, []);
    expect(repo.gateRuns()).toBe(1);
    for (const id of ids) expect(jobs(id).state).toBe('landed');
    expect(landedOrder(repo)).toEqual(ids);
    // One CAS: every member records the same train commit, and it is the target's tip.
    const trains = new Set(ids.map((id) => jobs(id).train));
    expect(trains.size).toBe(1);
    expect([...trains][0]).toBe(repo.tip('main'));
    expect(summary).toMatchObject({ type: 'summary', gateRuns: 1, landed: ids });
  });

  // First, middle and last (npm run bench measures every position of 8 and 16); the middle one end to end.
  it('fails a single culprit at position 4 of 8 and lands the 7 others with the gate runs the planner replay predicts', async () => {
    await checkSingleCulprit(4, await drainWithCulprits(8, [4]), true);
  });
});

describe('the drain in process: bisection variants', () => {
  for (const position of [1, 8]) {
    it(`fails a single culprit at position ${position} of 8 and lands the 7 others with the gate runs the planner replay predicts`, async () => {
      await checkSingleCulprit(position, await drainInProcess(8, [position]), false);
    });
  }

  it('finds two culprits among 16', async () => {
    const { repo, ids, jobs } = await drainInProcess(16, [5, 12]);
    expect(jobs(ids[4]).state).toBe('failed');
    expect(jobs(ids[11]).state).toBe('failed');
    const others = ids.filter((_, i) => i !== 4 && i !== 11);
    for (const id of others) expect(jobs(id).state).toBe('landed');
    expect(landedOrder(repo)).toEqual(others);
    expect(repo.gateRuns()).toBe(
      simulateDrain(
        Array.from({ length: 16 }, (_, i) => i === 4 || i === 11),
        16,
      ).gateRuns,
    );
    expect(repo.gateRuns()).toBeLessThanOrEqual(12);
  });

  it('finds a culprit at each end of the train', async () => {
    const { repo, ids, jobs } = await drainInProcess(8, [1, 8]);
    expect(jobs(ids[0]).state).toBe('failed');
    expect(jobs(ids[7]).state).toBe('failed');
    for (const id of ids.slice(1, 7)) expect(jobs(id).state).toBe('landed');
    expect(repo.gateRuns()).toBeLessThanOrEqual(9);
  });
});
