// The timed replay behind `land tune` (pure): jobs arrive at their submit times and a drain plans
// trains with the real planner functions (planTrain, splitFailed, startsBatch; windowFor and
// addTally for the window) under one setting of batch.max, batch.waitSeconds and batch.parallel.
// It follows lib/landing/plan/simulate.ts (the verdict cache, main's own check before a lone job
// fails) and adds the clock: a gate takes `gateSeconds`, a cached verdict none; a lone job waits
// for company as lib/landing/drain.ts waitForCompany does; with batch.parallel above 1, trains are
// built on the train ahead and gate together, settle in order, and those behind a train that does
// not land are abandoned and planned again (lib/landing/pipeline/pipeline.ts). With `flaky`, a FAIL
// is re-run as the policy's flaky rule says (plan/flakyPlan.ts decideRerun, the gate deterministic:
// a culprit fails every run, and each fresh PASS is a clean run of its history). With `flakes`, a
// fresh run of a good tree fails at the recorded flake rate (seeded), and with its `clearing` a
// failed head whose train behind passed lands with it (pipeline/clearing.ts). Probes are not
// modelled. docs/tune.md says what this cannot replay.
import { planTrain, splitFailed, startsBatch, type PlanJob } from '../landing/plan/trainPlan.js';
import { addTally, EMPTY_TALLY, expectedRate, initialWindow, windowFor, type CulpritTally } from '../landing/plan/windowPlan.js';
import type { GateEvidence } from '../landing/plan/flakeEvidence.js';
import { decideRerun, retriesRule, type RerunRule } from '../landing/plan/flakyPlan.js';
import type { BatchRef, GateRun } from '../store/index.js';
import type { ReplayJob } from './replayInput.js';

export interface ReplaySetting {
  /** batch.max */
  max: number;
  /** batch.waitSeconds */
  waitSeconds: number;
  /** batch.parallel */
  parallel: number;
}

/** The policy's flaky rule, and the gate's history when the replay starts (the evidence rule's). */
export type ReplayFlaky = { rule: 'evidence'; threshold: number; history: GateEvidence } | { rule: 'retries'; allowance: number };

/**
 * Random flakes: each fresh run of a good tree fails with probability `rate` (a seeded draw), and
 * optimistic clearing (policy flaky.clearing) on or off.
 */
export interface ReplayFlakes {
  rate: number;
  clearing: boolean;
  seed: number;
}

/** A deterministic gate, no clearing. */
export const NO_FLAKES: ReplayFlakes = { rate: 0, clearing: false, seed: 0 };

export interface ReplayResult {
  /** Gate runs started: every train that is not a cached verdict (abandoned ones included), and main's own checks. */
  gateRuns: number;
  /** Trains judged (cached verdicts included; abandoned trains not). */
  trains: number;
  /** Speculative trains abandoned because a train ahead did not land. */
  abandoned: number;
  landed: number;
  failed: number;
  /** Of `failed`, good jobs failed by flakes (a FAIL that the flaky rule took for a culprit's). */
  ejected: number;
  /** Failed trains cleared by the train behind them (flakes.clearing). */
  cleared: number;
  /** Seconds from submission to landing of each landed job, in queue order. */
  timesToLand: number[];
  /** When the last train settled (seconds after the first submission). */
  end: number;
}

type Sum = readonly [number, number];

interface RJob extends PlanJob {
  n: number;
  culprit: boolean;
  submitted: number;
  hash: Sum;
  state: 'future' | 'queued' | 'in_progress' | 'landed' | 'failed';
}

interface Flight {
  members: RJob[];
  batchId: string;
  attempt: number;
  /** The tree it gates: landed jobs, the trains ahead and its members (a sum of job hashes). */
  tree: Sum;
  end: number;
  pass: boolean;
  /** Its members as they were queued before it (restored when it is abandoned). */
  saved: Pick<RJob, 'requeued' | 'reason' | 'batch'>[];
  /** Its gates ran (no cached verdict). */
  ran: boolean;
  /** A member, or one of a train it is built on, is a culprit: every run of it fails. */
  culprit: boolean;
}

interface Replay {
  jobs: RJob[];
  /** The next job to arrive (index into jobs). */
  next: number;
  /** Queued jobs requeued as part of a batch (bisection halves, the rest of a batch), by queue position. */
  requeued: RJob[];
  /** Fresh jobs by queue position: those from `freshAt` on are queued (a deque: trains take from its front). */
  fresh: RJob[];
  freshAt: number;
  now: number;
  flights: Flight[];
  landedTree: Sum;
  cache: Map<string, boolean>;
  tally: CulpritTally;
  window: number;
  setting: ReplaySetting;
  gateSeconds: number;
  batches: number;
  /** The flaky rule, and the gate's clean runs and flakes so far (changed as the replay goes). */
  flaky: ReplayFlaky | null;
  evidence: GateEvidence;
  flakes: ReplayFlakes;
  /** Flake draws made so far (each fresh run of a good tree draws once). */
  draws: number;
  out: ReplayResult;
}

/** A 32-bit mix of n (lowbias32): a tree is the sum of its jobs' hashes in two lanes, so its key is order-free and cheap. */
function mix(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

const hashOf = (n: number): Sum => [mix(n), mix(n + 0x9e3779b9)];
const addSum = (a: Sum, b: Sum): Sum => [(a[0] + b[0]) >>> 0, (a[1] + b[1]) >>> 0];
const keyOf = (sum: Sum) => `${sum[0]}.${sum[1]}`;
const ref = (id: string, attempt: number): BatchRef => ({ id, members: [], attempt, index: 0 });

/** Puts a job in its place in the queue (requeued jobs first, then by queue position). */
function enqueue(r: Replay, job: RJob): void {
  const front = r.fresh[r.freshAt];
  if (!job.requeued && r.freshAt > 0 && (!front || job.n < front.n)) {
    r.fresh[--r.freshAt] = job;
    return;
  }
  const list = job.requeued ? r.requeued : r.fresh;
  let lo = job.requeued ? 0 : r.freshAt;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as RJob).n < job.n) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, job);
}

/** Admits every job submitted by now; returns how many jobs are queued. */
function admit(r: Replay): number {
  for (let job = r.jobs[r.next]; job && job.submitted <= r.now; job = r.jobs[++r.next]) {
    job.state = 'queued';
    r.fresh.push(job);
  }
  return r.requeued.length + r.fresh.length - r.freshAt;
}

/**
 * The next train by planTrain over the queue in landing order. Only the first `window` fresh jobs
 * are handed over: planTrain never takes more fresh jobs than that, nor skips one.
 */
function plan(r: Replay): RJob[] {
  admit(r);
  return planTrain([...r.requeued, ...r.fresh.slice(r.freshAt, r.freshAt + Math.max(1, r.window))], r.window);
}

/**
 * Starts a train on `base` now: a cached verdict is known at once, else one gate run of gateSeconds.
 * `ahead`: the train it is built on, when that is no landed tree (its culprit is in this tree too).
 */
function launch(r: Replay, members: RJob[], base: Sum, identity?: { id: string; attempt: number }, ahead?: Flight): void {
  const head = members[0] as RJob;
  const fresh = !identity && (startsBatch(head) || !head.batch);
  const batchId = identity?.id ?? (fresh ? `b${++r.batches}` : (head.batch as BatchRef).id);
  const attempt = identity?.attempt ?? (fresh ? 1 : Math.max(...members.map((job) => job.batch?.attempt ?? 1)));
  const saved = members.map(({ requeued, reason, batch }) => ({ requeued, reason, batch }));
  const batch = ref(batchId, attempt);
  for (const job of members) {
    job.state = 'in_progress';
    job.requeued = false;
    job.batch = batch;
  }
  r.requeued = r.requeued.filter((job) => job.state === 'queued');
  // The fresh members are the first queued fresh jobs (see plan).
  while (r.freshAt < r.fresh.length && (r.fresh[r.freshAt] as RJob).state !== 'queued') r.freshAt += 1;
  if (r.freshAt > 1024 && r.freshAt * 2 > r.fresh.length) {
    r.fresh = r.fresh.slice(r.freshAt);
    r.freshAt = 0;
  }
  const tree = members.reduce((sum, job) => addSum(sum, job.hash), base);
  const cached = r.cache.get(keyOf(tree));
  if (cached === undefined) r.out.gateRuns += 1;
  const culprit = ahead?.culprit === true || members.some((job) => job.culprit);
  const pass = cached ?? freshRunPasses(r, culprit);
  const end = r.now + (cached === undefined ? r.gateSeconds : 0);
  r.flights.push({ members, batchId, attempt, tree, pass, saved, ran: cached === undefined, end, culprit });
}

/** A fresh run: a culprit's fails; a good tree's passes unless it flakes. A PASS is one more clean run of the gate's history. */
function freshRunPasses(r: Replay, culprit: boolean): boolean {
  const pass = !culprit && !flakes(r);
  if (pass) cleanRun(r);
  return pass;
}

/** Whether this run of a good tree flakes: a seeded draw at the flake rate. */
function flakes(r: Replay): boolean {
  if (r.flakes.rate <= 0) return false;
  r.draws += 1;
  return mix(mix(r.flakes.seed ^ 0x5bd1e995) + r.draws) / 2 ** 32 < r.flakes.rate;
}

/** A fresh PASS: one more clean run in the gate's history. */
function cleanRun(r: Replay): void {
  r.evidence = { ...r.evidence, passed: r.evidence.passed + 1 };
}

/** One failed run of a culprit's tree, as the records keep it (what decideRerun reads). */
function failedRun(run: number, cached: boolean): GateRun {
  return { run, train: '', cached, verdict: 'FAIL', reason: 'gate', gate: 'gate', status: 'exit 1', seconds: 0, log: null, results: [] };
}

/** The waiting other half of the failed train the head was split from (plan/flakyPlan.ts siblingOf). */
function siblingIn(r: Replay, head: Flight): number {
  const waits = (job: RJob) => job.state === 'queued' && job.reason === 'bisected' && !head.members.includes(job);
  return r.requeued.filter((job) => waits(job) && job.batch?.id === head.batchId && job.batch.attempt === head.attempt).length;
}

/**
 * A failed head's re-runs under the flaky rule, each a gate run of gateSeconds: a culprit fails them
 * all; a good tree passes one unless it flakes. True: a re-run passed (its failed runs were flakes).
 */
function confirmFail(r: Replay, head: Flight): boolean {
  const { flaky } = r;
  if (!flaky) return false;
  const rule: RerunRule =
    flaky.rule === 'retries'
      ? retriesRule(flaky.allowance)
      : { kind: 'evidence', threshold: flaky.threshold, jobRate: () => expectedRate(r.tally), gate: () => r.evidence };
  const runs = [failedRun(1, !head.ran)];
  for (;;) {
    const decision = decideRerun({ members: head.members.length, prior: { key: '', runs: 0, reruns: 0 }, runs, sibling: siblingIn(r, head) }, rule);
    if (decision.kind === 'settle') return false;
    r.out.gateRuns += 1;
    r.now += r.gateSeconds;
    if (freshRunPasses(r, head.culprit)) {
      // Each fresh failed run of the tree was a flake: the history counts them (flakeHistory.ts).
      r.evidence = { ...r.evidence, flakes: r.evidence.flakes + runs.filter((run) => !run.cached).length };
      return true;
    }
    runs.push(failedRun(decision.run, false));
  }
}

function decided(r: Replay, train: CulpritTally): void {
  r.tally = addTally(r.tally, train);
  r.window = windowFor(r.tally, r.setting.max);
}

/** The trains behind the head go back to the queue as they were queued, unjudged. */
function abandonBehind(r: Replay): void {
  const back: RJob[] = [];
  for (const flight of r.flights.splice(1)) {
    flight.members.forEach((job, i) => {
      Object.assign(job, { state: 'queued', ...flight.saved[i] });
    });
    back.push(...flight.members);
    r.out.abandoned += 1;
  }
  // Last first: each fresh one goes to the front of the queued fresh jobs.
  for (const job of back.sort((a, b) => b.n - a.n)) enqueue(r, job);
}

/** A lone job's FAIL: main's own check (a gate run unless its tree is known), then the culprit fails and its batch's halves rejoin. */
function failAlone(r: Replay, head: Flight): void {
  const main = keyOf(r.landedTree);
  if (!r.cache.has(main)) {
    r.out.gateRuns += 1;
    r.now += r.gateSeconds;
    r.cache.set(main, true);
    cleanRun(r);
  }
  const job = head.members[0] as RJob;
  job.state = 'failed';
  r.out.failed += 1;
  if (!job.culprit) r.out.ejected += 1;
  for (const job of r.requeued) if (job.batch?.id === head.batchId && job.reason === 'bisected') job.reason = 'culprit_found';
  decided(r, { jobs: 1, culprits: 1 });
}

/** These jobs land now, in order. */
function landAll(r: Replay, members: readonly RJob[]): void {
  for (const job of members) {
    job.state = 'landed';
    r.landedTree = addSum(r.landedTree, job.hash);
    r.out.timesToLand.push(r.now - job.submitted);
  }
  r.out.landed += members.length;
  decided(r, { jobs: members.length, culprits: 0 });
}

/**
 * Optimistic clearing: a head whose gates ran (a head judged from the cache has no train behind it
 * in the pipeline) waits for the first run of the train behind; when that passed, both land.
 */
function clearedByBehind(r: Replay, head: Flight): boolean {
  const behind = r.flights[1];
  if (!r.flakes.clearing || !head.ran || !behind) return false;
  r.now = Math.max(r.now, behind.end);
  if (!behind.pass) return false;
  r.cache.set(keyOf(head.tree), false);
  r.out.trains += 1;
  r.out.cleared += 1;
  r.cache.set(keyOf(behind.tree), true);
  r.flights.splice(0, 2);
  landAll(r, [...head.members, ...behind.members]);
  return true;
}

/** The head's verdict, in order: it lands (or is cleared); or the trains behind are abandoned and it fails alone or splits. */
function settleHead(r: Replay): void {
  const head = r.flights[0] as Flight;
  r.now = Math.max(r.now, head.end);
  r.out.trains += 1;
  if (!head.pass && clearedByBehind(r, head)) return;
  if (!head.pass && confirmFail(r, head)) head.pass = true;
  r.cache.set(keyOf(head.tree), head.pass);
  if (head.pass) {
    r.flights.shift();
    landAll(r, head.members);
    return;
  }
  abandonBehind(r);
  r.flights.shift();
  if (head.members.length === 1) {
    failAlone(r, head);
    return;
  }
  const { first, second } = splitFailed(head.members, expectedRate(r.tally));
  const attempt = head.attempt + 1;
  const batch = ref(head.batchId, attempt);
  for (const job of second) {
    Object.assign(job, { state: 'queued', requeued: true, reason: 'bisected', batch });
    enqueue(r, job);
  }
  launch(r, first, r.landedTree, { id: head.batchId, attempt });
}

/** A drain pass with nothing in flight: the first train on the target (a lone job waits for company first); false when no job is left. */
function startPass(r: Replay): boolean {
  const queued = admit(r);
  if (!queued) {
    const arrival = r.jobs[r.next];
    if (!arrival) return false;
    r.now = Math.max(r.now, arrival.submitted);
    return true;
  }
  if (r.setting.waitSeconds > 0 && r.window > 1 && queued === 1 && r.fresh.length - r.freshAt === 1) {
    const deadline = r.now + r.setting.waitSeconds;
    const arrival = r.jobs[r.next];
    r.now = arrival && arrival.submitted <= deadline ? arrival.submitted : deadline;
  }
  launch(r, plan(r), r.landedTree);
  return true;
}

/** Up to batch.parallel trains in flight, each planned over the runnable jobs and built on the last. */
function fill(r: Replay): void {
  while (r.flights.length < r.setting.parallel) {
    const last = r.flights.at(-1);
    if (!last) return;
    const members = plan(r);
    if (!members.length) return;
    launch(r, members, last.tree, undefined, last);
  }
}

/**
 * Replays the drain of `jobs` (in queue order, submit times ascending) under `setting`, from a cold
 * start; `flaky`: a FAIL is re-run as that rule says (absent: a FAIL is final at once); `flakes`:
 * good trees fail at that rate, and a failed head may be cleared.
 */
export function replayDrain(
  jobs: readonly ReplayJob[],
  setting: ReplaySetting,
  gateSeconds: number,
  flaky: ReplayFlaky | null = null,
  flakes: ReplayFlakes = NO_FLAKES,
): ReplayResult {
  const r: Replay = {
    // Every field written here, in one order: one object shape for all jobs.
    jobs: jobs.map(({ submitted, culprit }, i) => ({
      n: i + 1,
      culprit,
      submitted,
      hash: hashOf(i + 1),
      state: 'future',
      requeued: false,
      reason: null,
      batch: null,
      priority: 'normal',
    })),
    next: 0,
    requeued: [],
    fresh: [],
    freshAt: 0,
    now: 0,
    flights: [],
    landedTree: [0, 0],
    cache: new Map(),
    tally: EMPTY_TALLY,
    window: initialWindow(setting.max),
    setting: { ...setting, parallel: Math.max(1, Math.floor(setting.parallel)) },
    gateSeconds,
    batches: 0,
    flaky,
    evidence: flaky?.rule === 'evidence' ? flaky.history : { passed: 0, flakes: 0 },
    // Clearing needs a train behind: batch.parallel 2 or more.
    flakes: { ...flakes, clearing: flakes.clearing && setting.parallel >= 2 },
    draws: 0,
    out: { gateRuns: 0, trains: 0, abandoned: 0, landed: 0, failed: 0, ejected: 0, cleared: 0, timesToLand: [], end: 0 },
  };
  for (;;) {
    if (!r.flights.length && !startPass(r)) break;
    if (!r.flights.length) continue;
    fill(r);
    settleHead(r);
  }
  r.out.end = r.now;
  return r.out;
}
