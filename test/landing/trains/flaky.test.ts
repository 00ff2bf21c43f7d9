// Flaky gates (policy flaky: the evidence rule by default, or the fixed allowance of retries.flaky),
// end to end with a real gate that fails its first N runs on a train carrying a flaky-* file
// (counted in a file outside the worktree) and then passes, or fails every Nth run; culprit-* files
// always fail. Gate runs are counted by the gate itself, one line per run naming the job.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { jobsById, makeQueueRepo, type QueueRepo } from '../../helpers/queue.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { FAIL_AT_ONCE } from '../../helpers/state.js';
import { runDrain, submitInProcess } from '../../helpers/drainHarness.js';

afterAll(cleanupTempDirs);

/** `flaky`: the fixed allowance (flaky.rule "retries"); absent: the default evidence rule. */
function flakyRepo(opts: { fails: number; every?: number; flaky?: number; infraFirst?: number; infraRetries?: number }): QueueRepo {
  const retries: Record<string, number> = {};
  if (opts.flaky !== undefined) retries.flaky = opts.flaky;
  if (opts.infraRetries !== undefined) retries.infra = opts.infraRetries;
  return makeQueueRepoWith(opts, retries);
}

function makeQueueRepoWith(opts: { fails: number; every?: number; infraFirst?: number }, retries: Record<string, number>): QueueRepo {
  // The flaky counter sits next to the run counter, outside the repository.
  const repo = makeQueueRepo({
    gate: {
      script: 'flaky.sh',
      env: {
        FLAKY_FAILS: String(opts.fails),
        ...(opts.every ? { FLAKY_EVERY: String(opts.every) } : {}),
        ...(opts.infraFirst ? { INFRA_FIRST: String(opts.infraFirst) } : {}),
      },
    },
    policy: retries.flaky === undefined ? { retries } : { retries, flaky: { rule: 'retries' } },
  });
  // makeQueueRepo's counter lives in its scratch dir; the flaky counter goes there too.
  const policy = JSON.parse(readFileSync(join(repo.dir, '.ctm.json'), 'utf8'));
  policy.gates[0].env.FLAKY_COUNTER = join(repo.scratch, 'flaky-runs.txt');
  repo.policy(policy);
  return repo;
}

/** Gate runs of trains that carried `id` (the gate writes "$LAND_JOB $LAND_MEMBERS"). */
const runsOf = (repo: QueueRepo, id: string) => repo.gateLines().filter((line) => line.split(' ').slice(1).includes(id)).length;

/** A branch adding `file`, submitted in this process. */
async function submitOne(repo: QueueRepo, branch: string, file: string): Promise<string> {
  repo.branch(branch, { [file]: `${branch}\n` });
  const [id] = await submitInProcess(repo.dir, [branch]);
  return id as string;
}

async function submit(repo: QueueRepo, branch: string, file: string): Promise<string> {
  repo.branch(branch, { [file]: `${branch}\n` });
  const result = await land(repo.dir, ['submit', branch, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return result.json().job.id as string;
}

function verdictOf(repo: QueueRepo, tree: string): string | null {
  const dir = join(repo.dir, '.git', 'land', 'verdicts');
  const file = readdirSync(dir).find((name) => name.startsWith(`${tree}-`));
  return file ? (JSON.parse(readFileSync(join(dir, file), 'utf8')).verdict as string) : null;
}

function metricRows(repo: QueueRepo): any[] {
  return readFileSync(join(repo.dir, '.git', 'land', 'metrics.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

function journal(repo: QueueRepo, id: string): any[] {
  return readFileSync(join(repo.dir, '.git', 'land', 'journal.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .filter((e) => e.job === id);
}

describe('flaky gates', () => {
  it('retries.flaky 1: a lone job whose gate fails once lands, recorded flaky everywhere; no cached FAIL is left', async () => {
    const repo = flakyRepo({ fails: 1, flaky: 1 });
    const id = await submit(repo, 'wobbly', 'flaky-1');
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const events = run.lines();
    expect(events.filter((e) => e.type === 'gate_rerun')).toEqual([expect.objectContaining({ job: id, run: 2, allowance: 1, gate: 'test', status: 'exit 1' })]);
    expect(events.at(-1)).toMatchObject({ landed: [id], failed: [] });
    expect(runsOf(repo, id)).toBe(2);

    const job = (await jobsById(repo)).get(id);
    expect(job.state).toBe('landed');
    // The landing records both runs of its train (not run 1's count, left by the re-run).
    expect(job.trainRuns).toMatchObject({ runs: 2, reruns: 1 });
    expect(job.flaky).toMatchObject({
      gate: 'test',
      tree: job.tree,
      failed: { run: 1, verdict: 'FAIL', status: 'exit 1' },
      passed: { run: 2, verdict: 'PASS' },
    });
    expect(verdictOf(repo, job.tree as string)).toBe('PASS');

    const [row] = metricRows(repo);
    expect(row).toMatchObject({ flaky: true, landed: true, verdict: 'PASS', members: [id] });
    expect(row.runs.map((r: any) => [r.run, r.verdict, r.results.map((g: any) => `${g.name} ${g.status}`)])).toEqual([
      [1, 'FAIL', ['test exit 1']],
      [2, 'PASS', ['test exit 0']],
    ]);
    expect(journal(repo, id).map((e) => e.event)).toEqual(expect.arrayContaining(['gate_rerun', 'gate_flaky', 'landed']));

    const show = await land(repo.dir, ['show', id]);
    expect(show.stdout).toMatch(/flaky +gate test failed \(exit 1\) in run 1 of train \S+, then passed in run 2/);
    const why = await land(repo.dir, ['why', id]);
    expect(why.stdout).toContain('its gates run again on the same tree (run 2 of train');
    expect(why.stdout).toContain('flaky gate test: it failed once (exit 1) and then passed on the same tree (run 2 of train');
    expect(why.stdout).toContain('a flake, not a culprit');
    const log = readFileSync(job.gateLog as string, 'utf8');
    expect(log).toMatch(/== run 2 of train .*the gates run again on the same tree \(a failed run may be a flake: policy flaky\)/);

    // land flaky: the gate's figures from the rows, and the flaky tree with its evidence.
    const flaky = await land(repo.dir, ['flaky', '--json']);
    expect(flaky.code, flaky.stderr).toBe(0);
    const report = flaky.json();
    expect(report.gates).toEqual([
      {
        gate: 'test',
        runs: 2,
        passed: 1,
        flakes: 1,
        flakyRuns: 1,
        confirmed: 0,
        cleared: 0,
        rate: 0.5,
        advisoryRuns: 0,
        uncounted: 0,
        advisory: false,
        assumed: 2 / 22,
      },
    ]);
    expect(report.recent).toEqual([
      expect.objectContaining({
        gate: 'test',
        tree: job.tree,
        jobs: [id],
        at: row.at,
        // Run 1's own time is not recorded: null, not the row's.
        failed: [{ train: row.train, run: 1, status: 'exit 1', log: job.gateLog, at: null }],
        passed: expect.objectContaining({ train: row.train, run: 2, at: row.at }),
      }),
    ]);
    const text = await land(repo.dir, ['flaky']);
    expect(text.stdout).toContain(
      `tree ${(job.tree as string).slice(0, 12)}… gate test (job ${id}): FAIL in run 1 of train ${row.train} (exit 1), PASS in run 2 of train ${row.train}: flake; log ${job.gateLog}`,
    );
    expect(text.stdout).toContain('advisory gates (policy): none');
  });
});

// Quarantine: a gate the policy marks advisory runs, its FAIL is recorded and told, and the
// verdict comes from the other gates (lib/landing/gates/advisory.ts), in the drain in this process.
describe('advisory gates', () => {
  it('an advisory gate that always fails: a good job lands, a culprit fails by the counted gate; both say the advisory failure was not counted', async () => {
    const repo = makeQueueRepo({ policy: FAIL_AT_ONCE });
    const policy = JSON.parse(readFileSync(join(repo.dir, '.ctm.json'), 'utf8'));
    policy.gates.unshift({ name: 'lint', run: ['sh', '-c', 'echo lint is broken; exit 1'], advisory: true });
    repo.policy(policy);
    const good = await submitOne(repo, 'good', 'good.txt');
    const bad = await submitOne(repo, 'bad', 'culprit-1');
    const run = await runDrain(repo.dir);
    expect(run.summary).toMatchObject({ landed: [good], failed: [bad], stopped: null });
    // `land run` says it on the gate's line: the event carries advisory only for the uncounted failure.
    expect(run.of('gate_finished').find((e) => e.gate === 'lint')).toMatchObject({ status: 'exit 1', advisory: true });
    expect(run.of('gate_finished').find((e) => e.gate === 'test')).not.toHaveProperty('advisory');
    const jobs = await jobsById(repo);
    expect(jobs.get(bad)).toMatchObject({ state: 'failed', reason: 'gate' });
    expect(jobs.get(bad).error?.message).toContain('test');
    // The good job's PASS is what the verdict cache holds: the advisory FAIL made no cached FAIL.
    expect(verdictOf(repo, jobs.get(good).tree as string)).toBe('PASS');
    const landedRow = metricRows(repo).find((r) => r.landed);
    expect(landedRow.gate.results.map((r: any) => [r.name, r.status, r.advisory])).toEqual([
      ['lint', 'exit 1', true],
      ['test', 'exit 0', undefined],
    ]);
    expect(readFileSync(landedRow.log, 'utf8')).toContain('== gate lint is advisory (policy): its failure is recorded, not counted\n');

    const show = await land(repo.dir, ['show', good]);
    expect(show.stdout).toContain('advisory gate lint failed (exit 1); not counted');
    const why = await land(repo.dir, ['why', bad]);
    expect(why.stdout).toMatch(/verdict FAIL: gate test/);
    expect(why.stdout).toContain('advisory gate lint failed (exit 1); not counted');
    const flaky = await land(repo.dir, ['flaky']);
    // Every run of lint failed, none counted: the batch and the good job alone ran it (the culprit
    // alone has the batch's tree: its FAIL came from the cache).
    expect(flaky.stdout).toMatch(/^lint +2 +0 +0 +0 +0 +0.025 +2 +advisory$/m);
    expect(flaky.stdout).toContain('advisory gates (policy): lint: they run and their failures are recorded, never counted');
    // land stats tells the advisory failures too, in its text and its JSON.
    const stats = await land(repo.dir, ['stats']);
    expect(stats.stdout).toMatch(/^ +lint +2 .*0 \(rate 0\); 2 advisory failures not counted$/m);
    expect((await land(repo.dir, ['stats', '--json'])).json().gates[0]).toMatchObject({ name: 'lint', advisory: true, uncounted: 2, confirmed: 0, flakes: 0 });

    // A broken policy: land flaky still shows the history and names the problem, in the project's words.
    policy.gates[0].advisory = 'yes';
    repo.policy(policy);
    const broken = await land(repo.dir, ['flaky']);
    expect(broken.code, broken.stderr).toBe(0);
    expect(broken.stdout).toMatch(
      /^advisory gates: unknown \(the policy cannot be read: .* is invalid \(1 problem\): gates\[0\]\.advisory: expected true or false\)$/m,
    );
  });
});

// Variants of the same decisions (the flaky allowance and the run cap in lib/landing/plan/flakyPlan.ts,
// settled by plan/settlement.ts) on the real drain in this process: the same gate, records, metrics
// rows and verdict cache; a stop of null is what `land run` exits 0 for.
describe('flaky gates, the drain in process', () => {
  it('a true culprit costs exactly 1 + retries.flaky runs alone, then fails; its FAIL stays cached', async () => {
    const repo = flakyRepo({ fails: 0, flaky: 2 });
    const id = await submitOne(repo, 'broken', 'culprit-1');
    const run = await runDrain(repo.dir);
    expect(run.summary.stopped).toBeNull();
    const { events } = run;
    expect(run.of('gate_rerun').map((e) => e.run)).toEqual([2, 3]);
    expect(runsOf(repo, id)).toBe(3);
    // The re-runs come first; only then is main itself gated (green: the job is the culprit), and the job failed.
    const order = events.map((e) => e.type).filter((t) => ['gate_rerun', 'checking_target', 'target_checked', 'failed'].includes(t));
    expect(order).toEqual(['gate_rerun', 'gate_rerun', 'checking_target', 'target_checked', 'failed']);
    const job = (await jobsById(repo)).get(id);
    expect(job).toMatchObject({ state: 'failed', reason: 'gate', trainRuns: { runs: 3, reruns: 2 } });
    expect(job.error?.message).toContain('failed all 3 runs of the same tree');
    expect(job.flaky).toBeUndefined();
    expect(verdictOf(repo, job.tree as string)).toBe('FAIL');
    const row = metricRows(repo).find((r) => r.members.includes(id));
    expect(row).toMatchObject({ flaky: false, verdict: 'FAIL' });
    expect(row.runs).toHaveLength(3);
  });

  it('the default (evidence rule), a new gate: a lone job whose gate fails once lands on the second run; a culprit fails after three', async () => {
    const repo = flakyRepo({ fails: 1 });
    const broken = await submitOne(repo, 'broken', 'culprit-1');
    const wobbly = await submitOne(repo, 'wobbly', 'flaky-1');
    await land(repo.dir, ['window', '--set', '1']);
    const run = await runDrain(repo.dir);
    expect(run.summary.stopped).toBeNull();
    expect(run.summary).toMatchObject({ landed: [wobbly], failed: [broken] });
    // A FAIL of a gate with no history makes its lone job a culprit with probability 0.87 (the
    // culprit rate's prior 1/7 against a flake rate believed 0.025): below 0.99, run again.
    const reruns = run.of('gate_rerun');
    expect(reruns[0]).toMatchObject({ job: broken, run: 2, rule: 'evidence', threshold: 0.99, jobs: 1, posterior: expect.closeTo(0.87, 2) });
    // The culprit: FAIL, FAIL, FAIL (the third makes it 0.998), then main's own check, then failed:
    // the bound at a cold start (docs/drain.md#flaky-gates; at most 5 runs of a tree ever).
    expect(reruns.filter((e) => e.job === broken).map((e) => e.run)).toEqual([2, 3]);
    expect(runsOf(repo, broken)).toBe(3);
    // The flaky job: FAIL, then PASS on the same tree; it lands.
    expect(reruns.filter((e) => e.job === wobbly).map((e) => e.run)).toEqual([2]);
    expect(runsOf(repo, wobbly)).toBe(2);
    const jobs = await jobsById(repo);
    expect(jobs.get(wobbly)).toMatchObject({ state: 'landed', flaky: { gate: 'test', passed: { run: 2 } } });
    expect(jobs.get(broken)).toMatchObject({ state: 'failed', reason: 'gate', trainRuns: { runs: 3, reruns: 2, fails: 3 } });
    // The message says why the runs stopped: the threshold reached (or the most runs of one train).
    expect(jobs.get(broken).error?.message).toMatch(
      /failed all 3 runs of the same tree \(a culprit with probability 0\.99\d, at least flaky\.threshold 0\.99\)$/,
    );
    const why = await land(repo.dir, ['why', wobbly]);
    expect(why.stdout).toMatch(/run 2 of train \S+\): a culprit with probability 0\.\d{3}, below flaky\.threshold 0\.99: not yet failed/);
  });

  it('a gate that fails every third run: every good job lands, the culprit fails, no tree is run more than five times', async () => {
    const repo = flakyRepo({ fails: 0, every: 3 });
    const ids: string[] = [];
    // Runs 3, 6, 9... fail: here the lone first job's run 3 (then its run 4 passes) and the last
    // job's cached FAIL (the batch's run 9; its re-run passes): two flakes on good trees.
    const files = ['a.txt', 'culprit-1', 'b.txt', 'c.txt', 'd.txt', 'e.txt'];
    for (const [i, file] of files.entries()) ids.push(await submitOne(repo, `job-${i}`, file));
    const run = await runDrain(repo.dir);
    expect(run.summary.stopped).toBeNull();
    const culprit = ids[files.indexOf('culprit-1')] as string;
    expect(run.summary.failed).toEqual([culprit]);
    expect([...run.summary.landed].sort()).toEqual(ids.filter((id) => id !== culprit).sort());
    const jobs = await jobsById(repo);
    // The two flakes the comment above names: each good job's FAIL, then its PASS of the same tree.
    expect(jobs.get(ids[0]).flaky).toMatchObject({ gate: 'test', failed: { cached: false }, passed: { cached: false } });
    expect(jobs.get(ids[5]).flaky).toMatchObject({ gate: 'test', failed: { cached: true }, passed: { cached: false } });
    for (const id of [1, 2, 3, 4].map((i) => ids[i] as string)) expect(jobs.get(id).flaky).toBeUndefined();
    // The culprit: its FAILs confirmed by re-runs of its own train, within the cap of five.
    expect(jobs.get(culprit).trainRuns?.runs).toBeLessThanOrEqual(5);
    expect(jobs.get(culprit).error?.message).toMatch(
      /failed all \d runs of the same tree \(a culprit with probability 0\.99\d, at least flaky\.threshold 0\.99\)$/,
    );
    // The flakes are on record: `land flaky` counts them.
    const flaky = await land(repo.dir, ['flaky', '--json']);
    expect(flaky.json().gates[0]).toMatchObject({ flakes: 2, flakyRuns: 2 });
  });

  it('a batch whose gate fails once bisects with no re-run; the half that meets the cached FAIL alone gets its allowance and lands', async () => {
    const repo = flakyRepo({ fails: 1, flaky: 1 });
    const steady = await submitOne(repo, 'steady', 'steady.txt');
    const wobbly = await submitOne(repo, 'wobbly', 'flaky-1');
    const run = await runDrain(repo.dir);
    expect(run.summary.stopped).toBeNull();
    const { events } = run;
    // [steady wobbly] FAIL (flaky) -> bisect: [steady] PASS; [wobbly] on the new main has the failed
    // batch's tree: a cached FAIL, which the allowance re-runs once: PASS.
    expect(events.filter((e) => e.type === 'bisected')).toHaveLength(1);
    const reruns = events.filter((e) => e.type === 'gate_rerun');
    expect(reruns).toEqual([expect.objectContaining({ job: wobbly, run: 2 })]);
    expect(repo.gateRuns()).toBe(3);
    const jobs = await jobsById(repo);
    expect(jobs.get(steady).state).toBe('landed');
    expect(jobs.get(wobbly)).toMatchObject({ state: 'landed', flaky: { gate: 'test', failed: { cached: true, run: 1 }, passed: { run: 2, cached: false } } });
    const rows = metricRows(repo);
    expect(rows[0]).toMatchObject({ members: [steady, wobbly], verdict: 'FAIL', flaky: false });
    expect(rows[0].runs).toBeUndefined();
    expect(rows.at(-1)).toMatchObject({ members: [wobbly], verdict: 'PASS', flaky: true, landed: true });
    expect(verdictOf(repo, jobs.get(wobbly).tree as string)).toBe('PASS');
  });

  it('a target whose gate fails once is re-run before the drain stops for a red target: it is green, and the culprit fails', async () => {
    // The default evidence rule judges the target's FAIL as a lone job's.
    const repo = flakyRepo({ fails: 1 });
    repo.commit('a flaky file on main', { 'flaky-main': 'main\n' });
    const id = await submitOne(repo, 'broken', 'culprit-1');
    const run = await runDrain(repo.dir);
    expect(run.summary.stopped).toBeNull();
    const { events } = run;
    expect(events.find((e) => e.type === 'target_checked')).toMatchObject({ verdict: 'PASS', cached: false });
    expect(run.summary).toMatchObject({ failed: [id], stopped: null });
    // The culprit three times (a new gate), main itself twice (FAIL, then PASS).
    expect(runsOf(repo, id)).toBe(3);
    expect(repo.gateRuns()).toBe(5);
    expect(verdictOf(repo, repo.git('rev-parse', 'main^{tree}'))).toBe('PASS');
    // The target's flake is told in the journal of the job the check was made for (land why).
    expect(journal(repo, id).find((e) => e.event === 'target_flaky')?.detail).toMatchObject({
      gate: 'test',
      tree: repo.git('rev-parse', 'main^{tree}'),
      failedRun: 1,
      status: 'exit 1',
      passedRun: 2,
    });
    const why = await land(repo.dir, ['why', id]);
    expect(why.stdout).toContain('its gate test failed (exit 1) and then passed on the same tree (run 2 of train');
  });

  it('at most five runs of one train in all: infra requeues of the same train count against the flaky allowance', async () => {
    // Two runs that cannot start (requeued, the same train rebuilt), then failures: 2 + 1 + 2 re-runs = 5,
    // although retries.flaky 4 alone would allow 1 + 4 after the infra runs.
    const repo = flakyRepo({ fails: 0, flaky: 4, infraFirst: 2, infraRetries: 10 });
    const id = await submitOne(repo, 'broken', 'culprit-1');
    const run = await runDrain(repo.dir);
    expect(run.summary.stopped).toBeNull();
    expect(run.of('verdict').map((e) => e.verdict)).toEqual(['INFRA', 'INFRA', 'FAIL', 'FAIL', 'FAIL']);
    expect(runsOf(repo, id)).toBe(5);
    const job = (await jobsById(repo)).get(id);
    expect(job).toMatchObject({ state: 'failed', reason: 'gate', trainRuns: { runs: 5, reruns: 2 } });
  }, 180_000);
});
