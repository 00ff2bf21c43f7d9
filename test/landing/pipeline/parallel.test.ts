// batch.parallel: trains gating at once, the ones behind built speculatively on the train ahead and
// settled strictly in order. Real git, the real CLI, small queues and short gates
// (fixtures/gates/overlap.sh).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { land, startLand } from '../../helpers/cli.js';
import { killStrays } from '../../helpers/procs.js';
import { cleanupTempDirs } from '../../helpers/repo.js';
import { gateScript, jobsById, landedOrder, makeQueueRepo, submitBranches, type QueueRepo } from '../../helpers/queue.js';
import { UNSANDBOXED } from '../../helpers/repo.js';
import { FAIL_AT_ONCE, journal, stateDir } from '../../helpers/state.js';
import { waitUntil } from '../../helpers/wait.js';
import { checkInvariants, isClean, summarize } from '../../helpers/invariants.js';
import { runDrain } from '../../helpers/drainHarness.js';

afterAll(cleanupTempDirs);
afterEach(killStrays);

interface ParallelRepo extends QueueRepo {
  /** Lets held gates finish. */
  go(): void;
  /** How many gates have started (each marks its train). */
  startedGates(): number;
}

/** A queue with batch.parallel whose gate sleeps a little (so trains overlap); `hold`: gates wait for go(). */
/** `evidence`: the default flaky rule (else a FAIL is final at once: these tests' subject is the pipeline). */
/** `clearing`: policy flaky.clearing (optimistic clearing). */
function parallelRepo(opts: { parallel: number; max: number; hold?: boolean; unsandboxed?: boolean; evidence?: boolean; clearing?: boolean }): ParallelRepo {
  const repo = makeQueueRepo();
  const gate = {
    name: 'test',
    run: ['sh', gateScript('overlap.sh')],
    timeoutSeconds: 60,
    env: { GATE_COUNTER: repo.counter, GATE_SCRATCH: repo.scratch, GATE_REPO: repo.dir, GATE_SLEEP: '0.2' },
  };
  repo.policy({
    target: 'main',
    gates: [gate],
    batch: { max: opts.max, parallel: opts.parallel },
    flaky: { ...(opts.evidence ? {} : FAIL_AT_ONCE.flaky), ...(opts.clearing ? { clearing: true } : {}) },
    ...(opts.unsandboxed ? { sandbox: UNSANDBOXED } : {}),
  });
  if (opts.hold) writeFileSync(join(repo.scratch, 'hold'), '');
  const startedGates = () => readdirSync(repo.scratch).filter((name) => name.startsWith('started-')).length;
  return Object.assign(repo, { go: () => writeFileSync(join(repo.scratch, 'go'), ''), startedGates });
}

type Event = { type: string; train?: string | null; members?: string[]; [key: string]: unknown };

const builtTrains = (events: Event[]) => events.filter((e) => e.type === 'train_built');

/** Every job landed once: no Land-Job twice on main, and each record names a train main contains. */
function expectLandedOnce(repo: QueueRepo, ids: readonly string[]) {
  const order = landedOrder(repo);
  expect(new Set(order).size).toBe(order.length);
  for (const id of ids) expect(order.filter((x) => x === id).length).toBeLessThanOrEqual(1);
}

function verdictTrains(repo: QueueRepo): string[] {
  const dir = join(stateDir(repo), 'verdicts');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')).train as string);
}

function metricRows(repo: QueueRepo): { train: string; verdict: string; reason: string | null; cached?: boolean; gate?: { results?: unknown[] } }[] {
  const file = join(stateDir(repo), 'metrics.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

describe('land run with batch.parallel 2', () => {
  it('abandons the speculative train behind a failing head: members back at the same attempt, no verdict of theirs, they land later', async () => {
    const repo = parallelRepo({ parallel: 2, max: 2 });
    const ids = (await submitBranches(repo, 4, [2])) as [string, string, string, string];
    // The head [1 2] decides only after the train behind it [3 4] was judged (a FAIL: it carries culprit-2).
    writeFileSync(join(repo.scratch, `slow-${ids[0]}`), '');
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const events: Event[] = run.lines();
    const [head, behind] = builtTrains(events);
    expect(head).toMatchObject({ members: [ids[0], ids[1]] });
    expect(head?.onTrain).toBeUndefined();
    expect(behind).toMatchObject({ members: [ids[2], ids[3]], onTrain: head?.train, base: head?.commit });
    expect(events.find((e) => e.type === 'verdict' && e.train === behind?.train)).toMatchObject({ verdict: 'FAIL', cached: false });
    const abandoned = events.filter((e) => e.type === 'train_abandoned');
    expect(abandoned[0]).toMatchObject({ train: behind?.train, after: head?.train, members: [ids[2], ids[3]] });
    const abandonedTrains = new Set(abandoned.map((e) => e.train as string));
    // Nothing of an abandoned train is a verdict: no verdict-cache entry, no window move; its row is
    // VOID (the gates it ran were spent: land stats counts them).
    for (const train of verdictTrains(repo)) expect(abandonedTrains.has(train)).toBe(false);
    const rows = metricRows(repo).filter((row) => abandonedTrains.has(row.train));
    expect(rows.map((row) => [row.verdict, row.reason])).toEqual([...abandonedTrains].map(() => ['VOID', 'speculation_abandoned']));
    // A probe dropped meanwhile (its assumption failed) is counted with them: its row is VOID too.
    const probeIds = new Set(events.filter((e) => e.type === 'probe_started').map((e) => e.train as string));
    const voided = abandonedTrains.size + metricRows(repo).filter((row) => probeIds.has(row.train) && row.verdict === 'VOID').length;
    const stats = (await land(repo.dir, ['stats', '--json'])).json();
    expect(stats.trains).toMatchObject({ abandoned: voided, abandonedByReason: { speculation_abandoned: voided } });
    // Every row whose gates ran counts one gate run, the void ones too (one was stopped part-way).
    const ranGates = metricRows(repo).filter((row) => !row.cached && (row.gate?.results?.length ?? 0) > 0);
    expect(ranGates.filter((row) => row.verdict === 'VOID').length).toBeGreaterThanOrEqual(1); // the train behind, judged before it was abandoned
    expect(stats.gateRuns.total).toBe(ranGates.length);
    const history = JSON.parse(readFileSync(join(stateDir(repo), 'window.json'), 'utf8')).history as { train: string | null; jobs?: number }[];
    for (const entry of history) expect(abandonedTrains.has(entry.train as string)).toBe(false);
    // What the window history decided: the four jobs once each (three landed, one culprit).
    expect(history.reduce((sum, entry) => sum + (entry.jobs ?? 0), 0)).toBe(4);
    // Journaled as such, so `land show` and `land why` can tell it; the attempt count is not raised by it.
    const lines = journal(repo).filter((entry) => entry.event === 'requeued' && entry.detail?.reason === 'speculation_abandoned');
    expect(lines.map((entry) => entry.job).sort()).toEqual(abandoned.flatMap((e) => e.members ?? []).sort());
    expect(lines.filter((entry) => entry.detail?.train === behind?.train).map((entry) => entry.job)).toEqual([ids[2], ids[3]]);
    const jobs = await jobsById(repo);
    const ridden = (id: string) => builtTrains(events).filter((e) => e.members?.includes(id) && !abandonedTrains.has(e.train as string)).length;
    for (const id of [ids[2], ids[3]]) expect(jobs.get(id).attempts).toBe(ridden(id));
    // The culprit failed alone; the others landed once each, in queue order.
    expect(jobs.get(ids[1]).state).toBe('failed');
    expect(jobs.get(ids[1]).error?.message).toMatch(/gate test: exit 1/);
    for (const id of [ids[0], ids[2], ids[3]]) expect(jobs.get(id).state).toBe('landed');
    expect(landedOrder(repo).filter((id) => id !== ids[0])).toEqual([ids[2], ids[3]]);
    expectLandedOnce(repo, ids);
    expect(repo.git('ls-tree', '--name-only', 'main')).not.toContain('culprit-2');
  });

  it('the default flaky rule: a speculative train failing on the culprit ahead is not re-run; the culprit is, and fails', async () => {
    const repo = parallelRepo({ parallel: 2, max: 1, evidence: true });
    const [culprit, good] = (await submitBranches(repo, 2, [1])) as [string, string];
    const run = await runDrain(repo.dir);
    expect(run.summary).toMatchObject({ stopped: null, landed: [good], failed: [culprit] });
    const [head, behind] = builtTrains(run.events as Event[]);
    expect(behind).toMatchObject({ members: [good], onTrain: head?.train });
    // The culprit alone: FAIL and two confirming re-runs (a new gate). The train behind it, built on
    // it, failed for the same culprit: it waited for the head instead of re-running, and was abandoned.
    const reruns = run.of('gate_rerun');
    expect(reruns.map((e) => e.train)).toEqual([head?.train, head?.train]);
    expect(run.of('train_abandoned')).toEqual([expect.objectContaining({ train: behind?.train })]);
    expect(repo.gateLines().filter((line) => line.split(' ').includes(good)).length).toBe(2);
  });

  it('optimistic clearing: a flake fails the head once, the train built on it passes; both land in one CAS, no re-run, the head cleared in the story', async () => {
    const repo = parallelRepo({ parallel: 2, max: 1, evidence: true, clearing: true });
    const before = repo.git('rev-parse', 'main');
    const [flaked, good] = (await submitBranches(repo, 2)) as [string, string];
    writeFileSync(join(repo.scratch, `flake-${flaked}`), '');
    const run = await runDrain(repo.dir);
    expect(run.summary).toMatchObject({ stopped: null, landed: [flaked, good], failed: [] });
    const [head, behind] = builtTrains(run.events as Event[]);
    expect(behind).toMatchObject({ members: [good], onTrain: head?.train });
    // Cleared at its first FAIL: no re-run of the head (the default rule would have re-run it), no target check.
    expect(run.of('gate_rerun')).toEqual([]);
    expect(run.of('checking_target')).toEqual([]);
    expect(run.of('cleared')).toEqual([expect.objectContaining({ train: head?.train, by: behind?.train, members: [flaked], gate: 'test', status: 'exit 1' })]);
    expect(run.of('landed')).toEqual([expect.objectContaining({ train: behind?.train, commit: behind?.commit, members: [flaked, good] })]);
    expect(repo.gateLines().length).toBe(2);
    // One compare-and-swap: main went from its old tip to the commit of the train behind, which holds the head's.
    expect(repo.git('rev-parse', 'main')).toBe(behind?.commit);
    expect(repo.git('rev-parse', `${behind?.commit}^`)).toBe(head?.commit);
    expect(repo.git('rev-parse', `${head?.commit}^`)).toBe(before);
    const rows = metricRows(repo);
    expect(rows.find((row) => row.train === head?.train)).toMatchObject({ verdict: 'VOID', reason: 'cleared' });
    expect(rows.find((row) => row.train === behind?.train)).toMatchObject({ verdict: 'PASS', landed: true, members: [flaked, good] });
    const jobs = await jobsById(repo);
    expect(jobs.get(flaked)).toMatchObject({ state: 'landed', train: behind?.commit });
    const why = await land(repo.dir, ['why', flaked]);
    expect(why.stdout).toMatch(new RegExp(`train ${head?.train} failed \\(gate test: exit 1\\), but train ${behind?.train}, built on it, passed`));
    const branches = ['b1', 'b2'].map((name) => ({ name, tip: repo.tip(name), kind: 'good' as const }));
    const report = checkInvariants({ dir: repo.dir, target: 'main', base: before, branches, phase: 'settled' });
    expect(isClean(report), summarize(report)).toBe(true);
    const check = await land(repo.dir, ['reconcile', '--check', '--json']);
    expect(check.code, check.stdout + check.stderr).toBe(0);
  });

  it('optimistic clearing never clears a culprit: the train built on it fails too, so the culprit fails and the other lands', async () => {
    const repo = parallelRepo({ parallel: 2, max: 1, clearing: true });
    const [culprit, good] = (await submitBranches(repo, 2, [1])) as [string, string];
    const run = await runDrain(repo.dir);
    expect(run.summary).toMatchObject({ stopped: null, landed: [good], failed: [culprit] });
    expect(run.of('cleared')).toEqual([]);
    expect(repo.git('log', '--format=%B', 'main')).not.toContain(`Land-Job: ${culprit}`);
  });

  it('the default flaky rule: while a lone culprit is confirmed by re-runs, the train past it gates beside it on the target, and is kept', async () => {
    const repo = parallelRepo({ parallel: 2, max: 8, evidence: true });
    const ids = await submitBranches(repo, 12, [2]);
    const run = await runDrain(repo.dir);
    expect(run.summary).toMatchObject({ stopped: null, failed: [ids[1]] });
    const events = run.events as Event[];
    const culpritTrain = builtTrains(events).find((e) => e.members?.length === 1 && e.members[0] === ids[1])?.train;
    expect(run.of('gate_rerun').map((e) => e.train)).toContain(culpritTrain);
    // The probe past the culprit (its batch's rest, on main), then the real train of it, from the cache.
    const past = events.find((e) => e.type === 'probe_started' && e.for === culpritTrain);
    expect(past).toMatchObject({ assumes: 'fails' });
    const next = builtTrains(events).find((e) => JSON.stringify(e.members) === JSON.stringify(past?.members));
    expect(events.find((e) => e.type === 'verdict' && e.train === next?.train)).toMatchObject({ verdict: 'PASS', cached: true });
  });

  it('a CAS lost under speculation: the target moved by someone else while two trains gate; both are rebuilt, the outside commit stays', async () => {
    // The gate plays the someone else who moves the target: it runs unsandboxed.
    const repo = parallelRepo({ parallel: 2, max: 2, unsandboxed: true });
    const ids = await submitBranches(repo, 4);
    repo.branch('outside', { 'outside.txt': 'pushed by someone else\n' });
    const outside = repo.tip('outside');
    writeFileSync(join(repo.scratch, 'outside'), outside);
    // A drainer's checkout is usually not on the target (a moved checked-out target is target_dirty).
    repo.git('checkout', '-q', '--detach');
    // A variant of the speculation's settlement: the drain in this process (a stop of null is `land run`'s exit 0).
    const run = await runDrain(repo.dir);
    expect(run.summary.stopped).toBeNull();
    const events: Event[] = run.events;
    const [head, behind] = builtTrains(events);
    expect(behind?.onTrain).toBe(head?.train);
    expect(events.find((e) => e.type === 'requeued' && e.train === head?.train)?.reason).toMatch(/target moved/);
    expect(events.find((e) => e.type === 'train_abandoned')).toMatchObject({ train: behind?.train, after: head?.train });
    // Nothing landed on the old base: every landing came after the outside commit, once each.
    expect(repo.git('merge-base', '--is-ancestor', outside, 'main')).toBe('');
    expect(events.filter((e) => e.type === 'landed').every((e) => e.train !== head?.train && e.train !== behind?.train)).toBe(true);
    const jobs = await jobsById(repo);
    for (const id of ids) expect(jobs.get(id).state).toBe('landed');
    expect(landedOrder(repo)).toEqual(ids);
    expectLandedOnce(repo, ids);
    expect(repo.git('ls-tree', '--name-only', 'main')).toContain('outside.txt');
  });

  it('kill -9 of the drainer with two trains in flight: the next `land run` recovers, nothing lost or landed twice', async () => {
    const repo = parallelRepo({ parallel: 2, max: 2, hold: true });
    const base = repo.tip('main');
    const ids = await submitBranches(repo, 4);
    const drainer = startLand(repo.dir, ['run']);
    await waitUntil('two gates running at once', () => repo.startedGates() >= 2);
    drainer.child.kill('SIGKILL');
    await drainer.done;
    const stuck = [...(await jobsById(repo)).values()].filter((j) => j.state === 'in_progress');
    expect(stuck.map((j) => j.id).sort()).toEqual([...ids].sort());
    repo.go();
    const again = await land(repo.dir, ['run', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.lines().filter((e: Event) => e.type === 'recovered')).toHaveLength(4);
    const jobs = await jobsById(repo);
    for (const id of ids) expect(jobs.get(id).state).toBe('landed');
    expect(landedOrder(repo)).toEqual(ids);
    const branches = ['b1', 'b2', 'b3', 'b4'].map((name) => ({ name, tip: repo.tip(name), kind: 'good' as const }));
    const report = checkInvariants({ dir: repo.dir, target: 'main', base, branches, phase: 'settled' });
    expect(isClean(report), summarize(report)).toBe(true);
    const check = await land(repo.dir, ['reconcile', '--check', '--json']);
    expect(check.code, check.stdout + check.stderr).toBe(0);
  });

  it('a cancel of a member of the speculative train is honoured at its boundary; the others land', async () => {
    const repo = parallelRepo({ parallel: 2, max: 2, hold: true });
    const ids = (await submitBranches(repo, 4)) as [string, string, string, string];
    const drainer = startLand(repo.dir, ['run', '--json']);
    await waitUntil('two gates running at once', () => repo.startedGates() >= 2);
    const cancel = await land(repo.dir, ['cancel', ids[3], '--json']);
    expect(cancel.json().outcome).toBe('stop_requested');
    repo.go();
    const done = await drainer.done;
    expect(done.code, done.stderr).toBe(0);
    const events: Event[] = done.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line));
    expect(builtTrains(events)[1]).toMatchObject({ members: [ids[2], ids[3]] });
    expect(events.find((e) => e.type === 'canceled')).toMatchObject({ job: ids[3] });
    // The withdrawn train's run is void, and its row says so (its gate ran: counted in land stats).
    const withdrawn = builtTrains(events)[1]?.train;
    expect(metricRows(repo).find((row) => row.train === withdrawn)).toMatchObject({ verdict: 'VOID', reason: 'withdrawn' });
    const jobs = await jobsById(repo);
    expect(jobs.get(ids[3]).state).toBe('canceled');
    for (const id of [ids[0], ids[1], ids[2]]) expect(jobs.get(id).state).toBe('landed');
    expect(landedOrder(repo)).toEqual([ids[0], ids[1], ids[2]]);
    expect(repo.git('ls-tree', '--name-only', 'main')).not.toContain('file-b4.txt');
  });
});

describe('land run with batch.parallel 3: probes where the culprit rate says', () => {
  it("gates a failing window's first part beside it, and both halves of a bisection at once; a probe's verdict is kept only when its assumption came true", async () => {
    const repo = parallelRepo({ parallel: 3, max: 8 });
    const ids = await submitBranches(repo, 8, [6]);
    // A variant of the speculation's settlement: the drain in this process (a stop of null is `land run`'s exit 0).
    const run = await runDrain(repo.dir);
    expect(run.summary.stopped).toBeNull();
    const events: Event[] = run.events;
    const trains = builtTrains(events);
    const probes = events.filter((e) => e.type === 'probe_started');
    const membersOf = (train: unknown) => trains.find((e) => e.train === train)?.members ?? [];
    // The window of 8 is likely to fail (1 - (6/7)^8 = 0.71): its first part is probed beside it, not a train behind it.
    expect(trains[0]?.members).toEqual(ids);
    expect(probes[0]?.for).toBe(trains[0]?.train);
    expect(trains.filter((e) => e.onTrain === trains[0]?.train)).toEqual([]);
    // The window failed and split into exactly that part: the probe's verdict is kept, and the part is judged from it.
    const kept = new Set(verdictTrains(repo));
    expect(kept.has(probes[0]?.train as string)).toBe(true);
    expect(trains[1]?.members).toEqual(probes[0]?.members);
    expect(events.find((e) => e.type === 'verdict' && e.train === trains[1]?.train)).toMatchObject({ verdict: 'PASS', cached: true });
    // Both halves of a bisection at once: a first half gates with the first part of its second half probed on its commit.
    const passes = probes.filter((e) => e.assumes === 'passes');
    for (const e of passes) expect((e.members ?? []).some((id) => membersOf(e.for).includes(id))).toBe(false);
    expect(passes.length).toBeGreaterThanOrEqual(1);
    const forCommit = trains.find((e) => e.train === passes[0]?.for)?.commit as string;
    expect(repo.git('merge-base', '--is-ancestor', forCommit, passes[0]?.commit as string)).toBe('');
    // A probe is no train of jobs: no record or journal line names it. One whose assumption failed is
    // dropped: nothing of it is kept, and its row (VOID, speculation_abandoned) counts the runs it spent.
    const probeIds = new Set(probes.map((e) => e.train as string));
    expect(journal(repo).filter((entry) => probeIds.has(entry.detail?.train as string))).toEqual([]);
    const rows = metricRows(repo).filter((row) => probeIds.has(row.train));
    for (const row of rows) expect([row.verdict, row.reason, kept.has(row.train)]).toEqual(['VOID', 'speculation_abandoned', false]);
    expect(rows.length + probes.filter((e) => kept.has(e.train as string)).length).toBe(probes.length);
    expect(rows.length).toBeGreaterThanOrEqual(1);
    // Each dropped probe says so (a kept one is told by the cached verdict of the train it stood for).
    const dropped = events.filter((e) => e.type === 'probe_dropped').map((e) => e.train as string);
    expect(dropped.sort()).toEqual(
      probes
        .filter((e) => !kept.has(e.train as string))
        .map((e) => e.train as string)
        .sort(),
    );
    const stats = (await land(repo.dir, ['stats', '--json'])).json();
    expect(stats.trains.abandonedByReason.speculation_abandoned).toBe(rows.length);
    const jobs = await jobsById(repo);
    expect(jobs.get(ids[5] as string).state).toBe('failed');
    for (const id of ids.filter((_, i) => i !== 5)) expect(jobs.get(id).state).toBe('landed');
    expectLandedOnce(repo, ids);
    expect(repo.git('ls-tree', '--name-only', 'main')).not.toContain('culprit-6');
  });
});

describe('batch.parallel in the policy', () => {
  it.each([
    ['0', 0, /batch\.parallel: Too small: expected number to be >=1/],
    ['17', 17, /batch\.parallel: Too big: expected number to be <=16/],
    ['1.5', 1.5, /batch\.parallel: Invalid input: expected int/],
  ])('refuses %s with a clear message (exit 3, as other policy errors)', async (_what, value, message) => {
    const repo = makeQueueRepo();
    repo.policy({ target: 'main', gates: [{ name: 'test', run: ['true'] }], batch: { max: 4, parallel: value } });
    const result = await land(repo.dir, ['config']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(message);
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(message);
  });
});
