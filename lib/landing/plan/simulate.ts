// A pure replay of the planner on a queue whose culprits are known: the same planTrain,
// splitFailed, batch identity and window sizing as a real drain (trains/runBatch.ts,
// plan/settlement.ts), with the verdict cache modelled (a train whose tree was judged before costs
// no gate run: after a pair fails and its first job lands alone, the second alone has the pair's
// tree, a cached FAIL) and main's own check before a lone job fails. A tree is the set of jobs
// merged on the base. No git, no files: a queue of 64 replays in well under a millisecond, so the
// tests and the benchmark can compare planner rules across thousands of queues.
import type { BatchRef } from '../../store/index.js';
import { planTrain, splitFailed, startsBatch, type PlanJob } from './trainPlan.js';
import { addTally, EMPTY_TALLY, initialWindow, windowFor, type CulpritTally } from './windowPlan.js';

interface SimJob extends PlanJob {
  n: number;
  culprit: boolean;
  state: 'queued' | 'in_progress' | 'landed' | 'failed';
}

export interface SimResult {
  gateRuns: number;
  trains: number;
  /** Queue positions (1-based) as they ended. */
  landed: number[];
  failed: number[];
  /** The window after each train that decided jobs. */
  windows: number[];
}

interface Sim {
  jobs: SimJob[];
  landed: Set<number>;
  cache: Map<string, boolean>;
  judged: CulpritTally;
  window: number;
  max: number;
  batches: number;
  out: SimResult;
}

const ref = (id: string, attempt: number): BatchRef => ({ id, members: [], attempt, index: 0 });

function treeOf(sim: Sim, members: readonly SimJob[]): string {
  return [...sim.landed, ...members.map((job) => job.n)].sort((a, b) => a - b).join(',');
}

/** The verdict of a train: from the cache when its tree was judged, else one gate run. True: PASS. */
function judge(sim: Sim, members: readonly SimJob[]): boolean {
  const tree = treeOf(sim, members);
  const cached = sim.cache.get(tree);
  if (cached !== undefined) return cached;
  sim.out.gateRuns += 1;
  const pass = !members.some((job) => job.culprit);
  sim.cache.set(tree, pass);
  return pass;
}

function decided(sim: Sim, judged: CulpritTally): void {
  sim.judged = addTally(sim.judged, judged);
  sim.window = windowFor(sim.judged, sim.max);
  sim.out.windows.push(sim.window);
}

function runnable(sim: Sim): SimJob[] {
  const rank = (job: SimJob) => (job.requeued ? 1 : 2);
  return sim.jobs.filter((job) => job.state === 'queued').sort((a, b) => rank(a) - rank(b) || a.n - b.n);
}

/** One admitted batch to the end of its bisection (runBatch + settleTrain, as far as verdicts go). */
function runBatch(sim: Sim, admitted: SimJob[]): void {
  const head = admitted[0] as SimJob;
  const fresh = startsBatch(head) || !head.batch;
  const id = fresh ? `b${++sim.batches}` : (head.batch as BatchRef).id;
  let attempt = fresh ? 1 : Math.max(...admitted.map((job) => job.batch?.attempt ?? 1));
  const waiting = sim.jobs.filter((job) => job.state === 'queued' && job.requeued && job.batch?.id === id && job.reason === 'bisected');
  let members = admitted;
  for (;;) {
    for (const job of members) Object.assign(job, { state: 'in_progress', requeued: false, batch: ref(id, attempt) });
    sim.out.trains += 1;
    if (judge(sim, members)) {
      for (const job of members) Object.assign(job, { state: 'landed' });
      for (const job of members) sim.landed.add(job.n);
      decided(sim, { jobs: members.length, culprits: 0 });
      return;
    }
    if (members.length === 1) {
      judge(sim, []); // main's own check: a PASS on record unless nothing has landed yet
      Object.assign(members[0] as SimJob, { state: 'failed' });
      for (const job of waiting) if (job.state === 'queued' && job.reason === 'bisected') job.reason = 'culprit_found';
      decided(sim, { jobs: 1, culprits: 1 });
      return;
    }
    const { first, second } = splitFailed(members);
    for (const job of second) Object.assign(job, { state: 'queued', requeued: true, reason: 'bisected', batch: ref(id, attempt + 1) });
    waiting.push(...second);
    members = first;
    attempt += 1;
  }
}

/** Replays a drain of `culprits.length` jobs (true: a culprit) from a cold start at batch.max. */
export function simulateDrain(culprits: readonly boolean[], max: number): SimResult {
  const sim: Sim = {
    jobs: culprits.map((culprit, i) => ({ n: i + 1, culprit, state: 'queued', requeued: false, reason: null, batch: null, priority: 'normal' })),
    landed: new Set(),
    cache: new Map(),
    judged: EMPTY_TALLY,
    window: initialWindow(max),
    max,
    batches: 0,
    out: { gateRuns: 0, trains: 0, landed: [], failed: [], windows: [] },
  };
  for (let queue = runnable(sim); queue.length; queue = runnable(sim)) runBatch(sim, planTrain(queue, sim.window));
  sim.out.landed = sim.jobs.filter((job) => job.state === 'landed').map((job) => job.n);
  sim.out.failed = sim.jobs.filter((job) => job.state === 'failed').map((job) => job.n);
  return sim.out;
}
