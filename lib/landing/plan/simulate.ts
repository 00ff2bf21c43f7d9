// A pure replay of the drain on a queue whose culprits are known: the same planTrain, batch
// identity, start changes and settlement (settleTrain, applied as trains/runTrains.ts applies it)
// as a real drain, with the verdict cache modelled (a train whose tree was judged before costs no
// gate run: after a pair fails and its first job lands alone, the second alone has the pair's
// tree, a cached FAIL) and main's own check before a lone job fails. A tree is the set of jobs
// merged on the base. No git, no files: a queue of 64 replays in about a millisecond, so the tests
// and the benchmark can compare planner rules across thousands of queues.
//
// With `flakes`, the one gate also fails a good tree with probability `rate` on each fresh run
// (seeded): each train is judged with its re-runs as trains/rerunTrain.ts does (plan/flakyPlan.ts
// decideRerun under the rule given), and the gate's flake history (runs, flakes, confirmed
// failures: what lib/stats/flakeTally.ts reads from the metrics rows) grows as the drain goes.
import { DEFAULT_FLAKY_THRESHOLD } from '../../config/index.js';
import { newJobRecord, startChanges, type JobChange } from '../../queue/index.js';
import type { GateRun, JobRecord } from '../../store/index.js';
import type { Verdicted } from '../gates/gateRunner.js';
import { judgementOf, type Judgement } from '../gates/judgement.js';
import type { GateEvidence } from './flakeEvidence.js';
import { decideRerun, retriesRule, siblingOf, type RerunRule } from './flakyPlan.js';
import { effectNeeded, settleTrain, type Found, type Next } from './settlement.js';
import { planTrain, startsBatch } from './trainPlan.js';
import { addTally, EMPTY_TALLY, expectedRate, initialWindow, type CulpritTally } from './windowPlan.js';

export interface SimResult {
  gateRuns: number;
  trains: number;
  /** Queue positions (1-based) as they ended. */
  landed: number[];
  failed: number[];
  /** The window after each train that decided jobs. */
  windows: number[];
}

/** The one gate's history as the flake estimate reads it (lib/stats/flakeTally.ts). */
export interface SimGateHistory {
  runs: number;
  passed: number;
  /** Failed runs of trees that a later run passed (the drain's GateEvidence.flakes). */
  flakes: number;
  confirmed: number;
}

export const NO_HISTORY: SimGateHistory = { runs: 0, passed: 0, flakes: 0, confirmed: 0 };

/** A flaky gate: a good tree FAILs a fresh run with probability `rate`; `random` is the seeded draw. */
export interface SimFlakes {
  rate: number;
  random: () => number;
  /** How a FAIL is judged: the evidence rule (threshold) or the fixed retries.flaky allowance. */
  rule: { kind: 'evidence'; threshold: number } | { kind: 'retries'; allowance: number };
  /** The gate's history before this drain (changed in place as the drain goes). */
  history: SimGateHistory;
}

/**
 * A deterministic gate under the default flaky rule, from no history: what a new repository's
 * drain does. Its culprits are confirmed by re-runs of their trees until the gate's clean runs make
 * it known deterministic (docs/drain.md#flaky-gates-the-evidence-rule). Without `flakes`, simulateDrain replays a
 * gate already known deterministic: no re-run at all.
 */
export function newDeterministicGate(threshold = DEFAULT_FLAKY_THRESHOLD): SimFlakes {
  return { rate: 0, random: () => 1, rule: { kind: 'evidence', threshold }, history: { ...NO_HISTORY } };
}

/** The gate's evidence from its history. */
export function evidenceOf(history: SimGateHistory): GateEvidence {
  return { passed: history.passed, flakes: history.flakes };
}

interface Sim {
  /** The records in queue order; a job's id is its queue position. Changed in place. */
  jobs: JobRecord[];
  byId: Map<string, JobRecord>;
  culprits: ReadonlySet<string>;
  landed: Set<number>;
  cache: Map<string, boolean>;
  /** The four judgements a train can get (PASS or FAIL, from the cache or a gate run). */
  verdicts: { pass: Judgement; fail: Judgement; cachedPass: Judgement; cachedFail: Judgement };
  tally: CulpritTally;
  window: number;
  max: number;
  batches: number;
  flakes: SimFlakes | null;
  out: SimResult;
}

/** The batch being run: its id, and its halves waiting in the queue (as trains/runTrains.ts keeps it). */
interface SimBatch {
  id: string;
  waiting: JobRecord[];
}

const position = (job: Pick<JobRecord, 'id'>): number => Number(job.id);

function treeOf(sim: Sim, members: readonly JobRecord[]): string {
  return [...sim.landed, ...members.map(position)].sort((a, b) => a - b).join(',');
}

/** A tree holds a culprit when a landed job or a member is one (a landed culprit: a wrong verdict). */
function badTree(sim: Sim, members: readonly JobRecord[]): boolean {
  return members.some((job) => sim.culprits.has(job.id)) || [...sim.landed].some((n) => sim.culprits.has(String(n)));
}

/** The verdict on a tree: from the cache when it was judged (unless `fresh`: a re-run), else one gate run. */
function judgeTree(sim: Sim, tree: string, members: readonly JobRecord[], fresh = false): Judgement {
  const known = fresh ? undefined : sim.cache.get(tree);
  if (known !== undefined) return known ? sim.verdicts.cachedPass : sim.verdicts.cachedFail;
  sim.out.gateRuns += 1;
  if (sim.flakes) sim.flakes.history.runs += 1;
  const pass = !badTree(sim, members) && !(sim.flakes && sim.flakes.random() < sim.flakes.rate);
  sim.cache.set(tree, pass);
  if (pass && sim.flakes) sim.flakes.history.passed += 1;
  return pass ? sim.verdicts.pass : sim.verdicts.fail;
}

/** One run as the records keep it (what decideRerun and the settlement read). */
function simRun(run: number, judgement: Judgement): GateRun {
  const failed = judgement.verdict === 'FAIL';
  const base = { run, train: '', cached: judgement.cached, seconds: 0, log: null, results: [] };
  return { ...base, verdict: judgement.verdict, reason: failed ? 'gate' : null, gate: failed ? 'gate' : null, status: failed ? 'exit 1' : null };
}

function rerunRule(sim: Sim, flakes: SimFlakes): RerunRule {
  if (flakes.rule.kind === 'retries') return retriesRule(flakes.rule.allowance);
  const evidence = evidenceOf(flakes.history);
  return { kind: 'evidence', threshold: flakes.rule.threshold, jobRate: () => expectedRate(sim.tally), gate: () => evidence };
}

/** A train's judgement with its re-runs (trains/rerunTrain.ts), the gate's history updated with what they showed. */
function judgeWithReruns(sim: Sim, tree: string, members: readonly JobRecord[], sibling: number): { judgement: Judgement; runs: GateRun[] } {
  let judgement = judgeTree(sim, tree, members);
  const runs = [simRun(1, judgement)];
  const flakes = sim.flakes;
  if (!flakes) return { judgement, runs };
  for (;;) {
    const decision = decideRerun({ members: members.length, prior: { key: tree, runs: 0, reruns: 0 }, runs, sibling }, rerunRule(sim, flakes));
    if (decision.kind === 'settle') break;
    judgement = judgeTree(sim, tree, members, true);
    runs.push(simRun(decision.run, judgement));
  }
  const fails = runs.filter((r) => r.verdict === 'FAIL').length;
  // Each FAIL before the PASS was a failed run of a good tree, as the drain's history counts it (flakeHistory.ts).
  if (fails > 0 && judgement.verdict === 'PASS') flakes.history.flakes += fails;
  else if (fails >= 2) flakes.history.confirmed += 1;
  return { judgement, runs };
}

/** The four judgements a replayed train can get, made once per replay. */
function verdicts(): Sim['verdicts'] {
  const pass: Verdicted = { verdict: 'PASS', failure: null };
  const fail: Verdicted = { verdict: 'FAIL', failure: { kind: 'fail', reason: 'gate', gate: 'gate', status: 'exit 1' } };
  const of = (outcome: Verdicted, cached: boolean) => judgementOf(outcome, { cached, log: null, telemetry: { mode: 'full', executed: [], gatesHash: '' } });
  return { pass: of(pass, false), fail: of(fail, false), cachedPass: of(pass, true), cachedFail: of(fail, true) };
}

/** What the effects after the verdict find: main's own check before a lone job fails (main is green), or a landing. */
function effectsAfter(sim: Sim, judgement: Judgement, members: readonly JobRecord[]): Found {
  switch (effectNeeded(judgement, members)) {
    case 'target_check':
      return { step: 'target_checked', health: { kind: 'green', cached: judgeTree(sim, treeOf(sim, []), []).cached, log: null } };
    case 'landing':
      return { step: 'landing', outcome: { kind: 'landed', warning: null } };
    case 'none':
      return { step: 'judged' };
  }
}

/** Record changes applied as lib/queue/transition.ts applies them, to the replay's records (in place). */
function apply(sim: Sim, changes: readonly JobChange[]): void {
  for (const change of changes) {
    const job = sim.byId.get(change.id);
    if (!job) throw new Error(`simulate: no job ${change.id}`);
    if (change.from && !change.from.includes(job.state)) {
      if (change.lenient) continue;
      throw new Error(`simulate: job ${job.id} is ${job.state}; expected ${change.from.join(' or ')}`);
    }
    if (change.when && !change.when(job)) continue;
    const patch = typeof change.patch === 'function' ? change.patch(job) : (change.patch ?? {});
    Object.assign(job, patch);
    job.state = change.to ?? job.state;
  }
}

/** One train: started, judged, and settled by settleTrain; the window follows the settlement's move. */
function rideTrain(sim: Sim, batch: SimBatch, members: readonly JobRecord[], attempt: number): Next {
  const trainId = `${batch.id}-${sim.out.trains + 1}`;
  apply(sim, startChanges(members, batch.id, attempt, trainId));
  sim.out.trains += 1;
  const tree = treeOf(sim, members);
  const { judgement, runs } = judgeWithReruns(sim, tree, members, siblingOf(batch.waiting, batch.id, attempt, members));
  const found = effectsAfter(sim, judgement, members);
  const settlement = settleTrain(
    {
      target: 'main',
      batchId: batch.id,
      trainId,
      attempt,
      members,
      train: { kind: 'merge', base: '', commit: trainId, tree },
      policy: { retries: { infra: 0, casLost: 0 }, batch: { max: sim.max } },
      window: sim.window,
      tally: sim.tally,
      waiting: batch.waiting,
      now: '',
      runs: { prior: { key: tree, runs: 0, reruns: 0 }, history: runs },
    },
    judgement,
    found,
  );
  apply(sim, settlement.changes);
  if (settlement.window) {
    sim.tally = addTally(sim.tally, settlement.window.decided);
    sim.window = settlement.window.after;
    sim.out.windows.push(sim.window);
  }
  if (settlement.next.next === 'publish') for (const job of members) sim.landed.add(position(job));
  return settlement.next;
}

/** One admitted batch to the end of its bisection, as trains/runTrains.ts runs it. */
function runTrains(sim: Sim, admitted: readonly JobRecord[]): void {
  const head = admitted[0] as JobRecord;
  const goesOn = head.batch !== null && !startsBatch(head);
  const batch: SimBatch = { id: goesOn && head.batch ? head.batch.id : `b${++sim.batches}`, waiting: [] };
  const riders = new Set(admitted.map((job) => job.id));
  batch.waiting = sim.jobs.filter(
    (job) => !riders.has(job.id) && job.state === 'queued' && job.requeued && job.batch?.id === batch.id && job.reason === 'bisected',
  );
  let members = admitted;
  let attempt = goesOn ? Math.max(...admitted.map((job) => job.batch?.attempt ?? 1)) : 1;
  for (;;) {
    const next = rideTrain(sim, batch, members, attempt);
    if (next.next === 'publish' || next.next === 'done') return;
    if (next.next === 'stop') throw new Error(`simulate: the drain stopped (${next.why})`);
    batch.waiting.push(...next.requeued);
    members = next.members;
    attempt = next.attempt;
  }
}

/** The queued jobs in landing order: requeued halves first, then by queue position. */
function runnable(sim: Sim): JobRecord[] {
  const rank = (job: JobRecord) => (job.requeued ? 1 : 2);
  return sim.jobs.filter((job) => job.state === 'queued').sort((a, b) => rank(a) - rank(b) || position(a) - position(b));
}

/** Replays a drain of `culprits.length` jobs (true: a culprit) from a cold start at batch.max; `flakes`: its gate is flaky. */
export function simulateDrain(culprits: readonly boolean[], max: number, flakes: SimFlakes | null = null): SimResult {
  const queued = newJobRecord({ id: '0', branch: '', tip: '', title: '', submitter: 'simulate', urgent: false });
  const jobs = culprits.map((_, i): JobRecord => ({ ...queued, id: String(i + 1), order: String(i + 1), branch: `job-${i + 1}` }));
  const sim: Sim = {
    jobs,
    byId: new Map(jobs.map((job) => [job.id, job])),
    culprits: new Set(jobs.filter((_, i) => culprits[i]).map((job) => job.id)),
    landed: new Set(),
    cache: new Map(),
    verdicts: verdicts(),
    tally: EMPTY_TALLY,
    window: initialWindow(max),
    max,
    batches: 0,
    flakes,
    out: { gateRuns: 0, trains: 0, landed: [], failed: [], windows: [] },
  };
  for (let queue = runnable(sim); queue.length; queue = runnable(sim)) runTrains(sim, planTrain(queue, sim.window));
  const ended = (state: JobRecord['state']) => sim.jobs.filter((job) => job.state === state).map(position);
  sim.out.landed = ended('landed');
  sim.out.failed = ended('failed');
  return sim.out;
}
