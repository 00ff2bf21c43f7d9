// `land run`: the drain loop. One drainer per repository (the drain lock), recovery of whatever
// a dead drainer left in_progress, then one admitted batch after another until no job is
// runnable. Every decision is written to disk before the next step starts. Each pass reads the
// job listing and the policy once and hands them down to the batch it runs.
import { loadTargetPolicy, targetTip } from './targetPolicy.js';
import type { LoadedPolicy } from '../config/index.js';
import { isLandError, LandError } from '../errors.js';
import { treeOf } from '../git/index.js';
import {
  applyChangesLocked,
  fastPathCheckedChange,
  jobsChangedSince,
  jobTarget,
  listActiveJobs,
  nowIso,
  rebuildJobLocked,
  rebuildMissingLocked,
  runnableJobs,
} from '../queue/index.js';
import type { DrainLease, FastPathRecord, QueueStore, JobRecord } from '../store/index.js';
import type { Emit } from './events.js';
import type { FastPathCheck } from './gates/judge.js';
import { fastPathDecision } from './proofs/fastPath.js';
import { recoverInProgress } from './recovery.js';
import { admitTips } from './trains/admitTips.js';
import { runBatch, type BatchOutcome, type DrainContext, type PassView } from './trains/runBatch.js';
import { planTrain } from './plan/trainPlan.js';
import { runPipeline } from './pipeline/pipeline.js';
import { IdleWatch, type WatchOptions } from './watch.js';
import { currentWindow } from './window.js';
import { checkSandboxPaths, describeIsolation, isolationOf, noSandboxError, type SandboxHost } from './gates/sandbox.js';

export interface DrainOptions {
  /** One admitted batch (with its bisection), then stop. */
  once: boolean;
  /** Wait for the drain lock instead of failing with `busy`. */
  wait: boolean;
  /** First signal: stop at the next train boundary. */
  stopAfterTrain: () => boolean;
  /** Second signal: kill the running gate; members are requeued. */
  abort: AbortSignal;
  /** The target named on the command line (`--target`), if any. */
  target?: string;
  /** `--watch`: wait for submissions instead of stopping when nothing is runnable. */
  watch?: WatchOptions | null;
  /** The gates' sandbox, resolved once by the command (gates/sandboxHost.ts). */
  sandbox: SandboxHost;
}

export interface DrainSummary {
  type: 'summary';
  trains: number;
  gateRuns: number;
  /** Landed by this drain's own compare-and-swap. */
  landed: string[];
  /**
   * Found already in the target when their train was built (merged outside the queue, or put there
   * by someone who moved the target, a gate included): recorded landed via `contained`, never
   * tested or landed by land, so not counted as landed.
   */
  contained: string[];
  failed: string[];
  canceled: string[];
  queued: string[];
  window: number;
  stopped: null | { why: string; message: string };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sleeps up to `ms`, returning early once `stop()` holds. */
async function pause(ms: number, stop: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !stop()) await sleep(Math.min(100, deadline - Date.now()));
}

type Stopped = DrainSummary['stopped'];

/** One drain: what every pass works with. */
interface DrainRun {
  ctx: DrainContext;
  opts: DrainOptions;
  lease: DrainLease;
  /** The drain's target; only the jobs submitted for it ride its trains. */
  target: string;
  idle: IdleWatch | null;
  /** Corrupt record files already reported (each once per drain). */
  reported: Set<string>;
  /** The queued and running jobs of the last listing: one that vanishes from the next is rebuilt. */
  live: Map<string, JobRecord>;
  /** The last train built, to name it when the state folder vanishes. */
  lastTrain: string | null;
}

/** A listing of the queue, with the records' version read just before it (a later change wakes an idle wait). */
interface QueueRead {
  version: string;
  jobs: JobRecord[];
}

const mine = (run: DrainRun, jobs: readonly JobRecord[]) => jobs.filter((job) => jobTarget(job, run.target) === run.target);
const runnableOf = (run: DrainRun, queue: QueueRead) => runnableJobs(mine(run, queue.jobs));
const stopAsked = (run: DrainRun) => run.opts.stopAfterTrain() || run.opts.abort.aborted;
const interrupted: Stopped = { why: 'interrupted', message: 'stopped by a signal at a train boundary' };

function reportCorrupt(run: DrainRun, file: string, problem: string): void {
  if (run.reported.has(file)) return;
  run.reported.add(file);
  run.ctx.emit({ type: 'corrupt_record', file, problem });
}

async function readQueue(run: DrainRun): Promise<QueueRead> {
  const { store } = run.ctx;
  // A queue kept in a remote: one fetch of its refs and the target; an outage of the remote shorter
  // than the lease is ridden out there (lib/store/outage.ts), unless a stop is asked meanwhile.
  await store.refresh({ shouldStop: () => stopAsked(run) || run.lease.compromised() !== null });
  const version = run.idle ? store.jobsVersion() : '';
  const listing = await listActiveJobs(store); // the index of active jobs: no finished record is read
  for (const bad of listing.corrupt) reportCorrupt(run, bad.file, bad.problem);
  const listed = new Set([...listing.jobs.map((job) => job.id), ...listing.corrupt.map((bad) => bad.file.replace(/\.json$/, ''))]);
  const vanished = [...run.live.keys()].filter((id) => !listed.has(id));
  const jobs = vanished.length && !store.stateFolderVanished() ? [...listing.jobs, ...(await rebuildVanished(run, vanished))] : listing.jobs;
  run.live = new Map(jobs.filter((job) => job.state === 'queued' || job.state === 'in_progress').map((job) => [job.id, job]));
  return { version, jobs };
}

/** Records that vanished since the last listing (deleted by hand or by a gate): rebuilt from the journal, or reported. */
async function rebuildVanished(run: DrainRun, ids: readonly string[]): Promise<JobRecord[]> {
  const { store, emit } = run.ctx;
  const rebuilt: JobRecord[] = [];
  await store.withQueueLock(() => {
    for (const id of ids) {
      if (store.readJob(id)) continue; // back meanwhile: the next listing has it
      try {
        const job = rebuildJobLocked(store, id);
        if (job) rebuilt.push(job);
      } catch (error) {
        if (!(error instanceof LandError)) throw error;
        reportCorrupt(run, `${id}.json`, error.message);
      }
    }
  });
  for (const job of rebuilt) emit({ type: 'record_rebuilt', job: job.id, state: job.state });
  return rebuilt;
}

/** At the start of a drain: every record the journal knows but the jobs folder lacks is rebuilt (or reported). */
async function rebuildMissing(run: DrainRun): Promise<void> {
  const { store, emit } = run.ctx;
  const missing = await store.withQueueLock(() => rebuildMissingLocked(store));
  for (const job of missing.rebuilt) emit({ type: 'record_rebuilt', job: job.id, state: job.state });
  for (const bad of missing.corrupt) reportCorrupt(run, `${bad.id}.json`, bad.problem);
}

/**
 * The state folder was removed while the drain ran (a gate ran `rm -rf .git/land`): the drain
 * stops and says so, instead of taking the lost lock for another drainer's. Exit 8 (`corrupt`):
 * the queue's state is destroyed, nobody else holds it.
 */
function stateVanishedError(run: DrainRun): LandError {
  const by = run.lastTrain ? ` (by the gate of train ${run.lastTrain}?)` : '';
  const lost = [...run.live.values()];
  return new LandError(
    'corrupt',
    `the state folder ${run.ctx.store.root} was removed while the drain ran${by}: its job records and journal are gone (${lost.length} queued or running job(s) lost); the drain stops`,
    {
      details: lost.map((job) => `${job.id} ${JSON.stringify(job.branch)} was ${job.state}`),
      hint: 'resubmit those branches (`land submit <branch>`); a gate must never write to the git folder (docs/state.md#a-removed-state-folder)',
    },
  );
}

/** With batch.waitSeconds, a lone job waits for company before gating alone; returns the queue as it is then. */
async function waitForCompany(run: DrainRun, seconds: number, head: JobRecord): Promise<QueueRead> {
  run.ctx.emit({ type: 'waiting_for_company', job: head.id, seconds });
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline && !run.opts.stopAfterTrain()) {
    await sleep(Math.min(500, Math.max(10, deadline - Date.now())));
    const queue = await readQueue(run);
    if (runnableOf(run, queue).length > 1) return queue;
  }
  return readQueue(run);
}

const refusalOf = (decision: FastPathRecord): string | null => (decision.alone ? null : decision.refusal);

/**
 * The window choice's half of the fast path: a head job whose tip is already proven (or whose
 * tree has a cached PASS) on the current target rides alone. The refusal, when there is one, is
 * kept on the job so `land show` can say why it was gated. The decision is handed to the judge,
 * so it is made once per train. Null: the head rides with the rest of its admitted batch.
 */
async function headFastPath(store: QueueStore, cwd: string, loaded: LoadedPolicy, baseTree: string, head: JobRecord): Promise<FastPathCheck | null> {
  if (head.requeued && head.batch) return null; // the rest of an admitted batch rides together
  const base = loaded.tip;
  const decision = await fastPathDecision({ cwd, store, policy: loaded.policy, base, baseTree, job: head });
  const summary: FastPathRecord = decision.alone
    ? { alone: true, source: decision.source, proofSource: decision.proofSource ?? null, tree: decision.tree, base, checkedAt: nowIso() }
    : { alone: false, refusal: decision.refusal, tree: decision.tree, base, checkedAt: nowIso() };
  if (decision.restored) summary.restored = decision.restored; // trusted paths it changes (land show)
  const previous = head.fastPath;
  if (!previous || previous.alone !== summary.alone || refusalOf(previous) !== refusalOf(summary) || previous.base !== base) {
    // Bookkeeping of this drainer: a queue kept in a remote does not push it on its own.
    await store.withUnsharedQueueLock(() => applyChangesLocked(store, [fastPathCheckedChange(head, summary)]));
  }
  return { job: head.id, base, decision };
}

/**
 * Fails the runnable jobs whose tip is no commit here (trains/admitTips.ts) before anything reads
 * their tips (the fast-path check merges the head's). False when it failed any: the pass starts again.
 */
async function tipsAdmitted(run: DrainRun, runnable: readonly JobRecord[]): Promise<boolean> {
  return (await admitTips(run.ctx, runnable)).length === runnable.length;
}

/** Who rides the next train, and what the pass read for it; 'again' when the lone job left while it waited. */
async function chooseTrain(
  run: DrainRun,
  first: { loaded: LoadedPolicy; queue: QueueRead; runnable: JobRecord[] },
): Promise<{ members: JobRecord[]; pass: PassView } | 'again'> {
  const { cwd, store } = run.ctx;
  let { loaded, queue, runnable } = first;
  if (!(await tipsAdmitted(run, runnable))) return 'again';
  let window = currentWindow(store, loaded.policy.batch.max);
  const { waitSeconds } = loaded.policy.batch;
  if (waitSeconds > 0 && window > 1 && runnable.length === 1 && !runnable[0]?.requeued) {
    queue = await waitForCompany(run, waitSeconds, runnable[0] as JobRecord);
    runnable = runnableOf(run, queue);
    if (!runnable.length) return 'again'; // the lone job was canceled while it waited
    if (!(await tipsAdmitted(run, runnable))) return 'again'; // the company it found
    loaded = await loadTargetPolicy(cwd, store, run.opts.target); // the target may have moved meanwhile
    window = currentWindow(store, loaded.policy.batch.max);
  }
  const head = runnable[0] as JobRecord;
  const baseTree = await treeOf(cwd, loaded.tip);
  const fastPath = await headFastPath(store, cwd, loaded, baseTree, head);
  const members = fastPath?.decision.alone ? [head] : planTrain(runnable, window);
  return { members, pass: { loaded, baseTree, jobs: queue.jobs, fastPath } };
}

/** batch.parallel above 1: trains in flight at once (pipeline/pipeline.ts), until none is. */
function runParallel(run: DrainRun, pass: PassView, members: readonly JobRecord[]): Promise<BatchOutcome> {
  const opts = {
    parallel: pass.loaded.policy.batch.parallel,
    once: run.opts.once,
    stopAsked: () => stopAsked(run) || run.lease.compromised() !== null,
    runnable: async () => runnableOf(run, await readQueue(run)),
  };
  return runPipeline(run.ctx, opts, pass, members);
}

/** Runs one batch (or, with batch.parallel, a pipeline of trains); whatever goes wrong, no job stays in_progress behind this drainer. */
async function runBatchRecovering(run: DrainRun, pass: PassView, members: readonly JobRecord[]): Promise<BatchOutcome> {
  const { ctx } = run;
  try {
    return pass.loaded.policy.batch.parallel > 1 ? await runParallel(run, pass, members) : await runBatch(ctx, pass, members);
  } catch (error) {
    if (ctx.store.stateFolderVanished()) throw stateVanishedError(run);
    // Each job is decided against git now (landed if its train is in the target, else back to the queue).
    const tipNow = await targetTip(ctx.cwd, ctx.store, pass.loaded.target).catch(() => null);
    if (tipNow) await recoverInProgress({ cwd: ctx.cwd, store: ctx.store, targetTip: tipNow, emit: ctx.emit }).catch(() => undefined);
    throw error;
  }
}

/** Between passes: the back-off after a train that tested nothing, the --once boundary, the listing. */
interface Between {
  queue: QueueRead | null;
  infraInARow: number;
  onceBatch: string | null;
}

/** After a batch: reads the queue for the next pass; false when --once has run its batch. */
async function afterBatch(run: DrainRun, between: Between, outcome: BatchOutcome & { kind: 'done' }): Promise<boolean> {
  let queue = await readQueue(run);
  // Nothing was tested: wait before trying again (1 s, 2 s, 4 s ... at most 30 s), so a lane
  // or store that is briefly away does not use up every job's retries.infra at once.
  between.infraInARow = outcome.infra ? between.infraInARow + 1 : 0;
  if (outcome.infra && runnableOf(run, queue).length > 0) {
    const seconds = Math.min(30, 2 ** (between.infraInARow - 1));
    run.ctx.emit({ type: 'backing_off', seconds, reason: outcome.infra });
    await pause(seconds * 1000, () => stopAsked(run));
    queue = await readQueue(run); // the queue as the pause left it
  }
  between.queue = queue;
  if (!run.opts.once) return true;
  // --once: one admitted batch, to the end of its bisection (its halves come back first).
  between.onceBatch ??= outcome.batch;
  const next = runnableOf(run, queue)[0];
  // The rest of a batch whose culprit was found starts a new batch with fresh jobs: --once stops there.
  return Boolean(next?.requeued && next.batch?.id === between.onceBatch && next.reason !== 'cas_lost' && next.reason !== 'culprit_found');
}

/**
 * The lease was lost because the queue's remote did not answer for the lease's time (an outage,
 * lib/store/outage.ts): the drain ends with that error (exit 13), not as a lock taken over.
 */
function throwIfRemoteGaveUp(run: DrainRun): void {
  const compromised = run.lease.compromised();
  if (isLandError(compromised, 'remote')) throw compromised;
}

/** Stops at a train boundary: a signal, or the drain lock lost. Undefined: go on. */
function boundaryStop(run: DrainRun): Stopped | undefined {
  if (stopAsked(run)) {
    if (!run.idle?.idle) return interrupted;
    run.idle.end('signal'); // nothing was running and nothing is runnable: a clean stop
    return null;
  }
  throwIfRemoteGaveUp(run);
  const compromised = run.lease.compromised();
  return compromised ? { why: 'lock_lost', message: `the drain lock was lost: ${compromised.message}` } : undefined;
}

/** One pass after another, until nothing is runnable (or, with --watch, until idle-exit or a signal). */
async function drainPasses(run: DrainRun): Promise<Stopped> {
  const between: Between = { queue: null, infraInARow: 0, onceBatch: null };
  for (;;) {
    if (run.ctx.store.stateFolderVanished()) throw stateVanishedError(run);
    const stop = boundaryStop(run);
    if (stop !== undefined) return stop;
    const queue = between.queue ?? (await readQueue(run));
    between.queue = null;
    const runnable = runnableOf(run, queue);
    if (!runnable.length) {
      if (!run.idle) return null;
      const wake = await run.idle.waitForWork(queue.version, () => stopAsked(run) || run.lease.compromised() !== null);
      if (wake === 'idle_exit') return null;
      continue; // a change or a stop: the loop's top decides
    }
    run.idle?.resume(runnable.length);
    // Read once per pass, and only when there is work: an idle watcher runs no git while it waits.
    const loaded = await loadTargetPolicy(run.ctx.cwd, run.ctx.store, run.opts.target);
    checkSandbox(loaded, run.ctx.sandbox, null);
    const chosen = await chooseTrain(run, { loaded, queue, runnable });
    if (chosen === 'again') continue;
    if (!chosen.members.length) return null;
    if (stopAsked(run)) return interrupted;
    const outcome = await runBatchRecovering(run, chosen.pass, chosen.members);
    if (run.ctx.store.stateFolderVanished()) throw stateVanishedError(run);
    if (outcome.kind === 'stop' && outcome.why === 'lock_lost') throwIfRemoteGaveUp(run);
    if (outcome.kind === 'stop') return { why: outcome.why, message: outcome.message };
    if (!(await afterBatch(run, between, outcome))) return null;
  }
}

/**
 * Whether gates can run as the policy says, checked at the start and again for every policy a pass
 * reads (the target may have moved): a required sandbox this machine cannot make stops the drain
 * before it takes a job (exit 14), and so does a sandbox path inside the git folder (exit 3); gates
 * that will run unsandboxed are said at the start. A policy without gates or refresh entries runs
 * none of a change's code: nothing to check.
 */
function checkSandbox(loaded: LoadedPolicy, host: SandboxHost, emit: Emit | null): void {
  const { policy } = loaded;
  if (!policy.gates.length && !policy.refresh.length) return;
  const iso = isolationOf(host, policy.sandbox);
  if (iso.decision.kind === 'refused') throw noSandboxError(iso.decision.message);
  checkSandboxPaths(iso, policy.gates);
  if (iso.decision.kind === 'unsandboxed' && emit) emit({ type: 'warning', message: describeIsolation(iso) });
}

export async function drain(cwd: string, store: QueueStore, opts: DrainOptions, emit: Emit): Promise<DrainSummary> {
  const initial = await loadTargetPolicy(cwd, store, opts.target); // a bad policy stops the drain before anything is taken
  checkSandbox(initial, opts.sandbox, null);
  const lease = await store.acquireDrainLock({
    wait: opts.wait,
    shouldStop: () => opts.stopAfterTrain() || opts.abort.aborted,
    onWaiting: (holder) =>
      emit({
        type: 'warning',
        message: `waiting for ${store.drainLockName} held by ${holder ? `pid ${holder.pid} on ${holder.host}` : 'another process'}`,
      }),
  });
  const startedAt = new Date().toISOString();
  const journalStart = store.journalMark().size; // the summary reads only the jobs named after it
  const noting: Emit = (event) => {
    if (event.type === 'train_built') {
      run.lastTrain = event.train;
      for (const id of event.members) {
        const job = run.live.get(id);
        if (job) run.live.set(id, { ...job, state: 'in_progress' });
      }
    }
    emit(event);
  };
  const ctx: DrainContext = {
    cwd,
    store,
    emit: noting,
    holds: lease.holds,
    abort: opts.abort,
    target: opts.target,
    counters: { trains: 0, gateRuns: 0 },
    sandbox: opts.sandbox,
    tipChecks: new Map(),
  };
  const run: DrainRun = {
    ctx,
    opts,
    lease,
    target: initial.target,
    idle: opts.watch ? new IdleWatch(store, opts.watch, emit, initial.target) : null,
    reported: new Set(),
    live: new Map(),
    lastTrain: null,
  };
  let stopped: Stopped = null;
  // A token file left by a drainer that died mid-landing authorizes nothing (its process is
  // gone); it is removed all the same. Each landing writes its own token's hash.
  store.clearToken();
  try {
    emit({ type: 'drain_started', pid: process.pid, target: initial.target });
    checkSandbox(initial, opts.sandbox, emit);
    store.removeStaleTempFiles();
    await rebuildMissing(run);
    const tip = await targetTip(cwd, store, initial.target);
    if (tip) await recoverInProgress({ cwd, store, targetTip: tip, emit, target: store.movesLocalTarget ? initial.target : undefined });
    stopped = await drainPasses(run);
  } finally {
    await lease.release();
  }
  return summarize(run, startedAt, stopped, (await loadTargetPolicy(cwd, store, opts.target).catch(() => initial)).policy.batch.max, journalStart);
}

function summarize(run: DrainRun, startedAt: string, stopped: Stopped, max: number, journalStart: number): DrainSummary {
  const { store, counters } = run.ctx;
  const jobs = jobsChangedSince(store, journalStart);
  const since = (stamp: string | undefined) => stamp !== undefined && stamp >= startedAt;
  return {
    type: 'summary',
    trains: counters.trains,
    gateRuns: counters.gateRuns,
    landed: jobs.filter((j) => j.state === 'landed' && j.landedVia !== 'contained' && since(j.timestamps.landed)).map((j) => j.id),
    contained: jobs.filter((j) => j.state === 'landed' && j.landedVia === 'contained' && since(j.timestamps.landed)).map((j) => j.id),
    failed: jobs.filter((j) => j.state === 'failed' && since(j.timestamps.failed)).map((j) => j.id),
    canceled: jobs.filter((j) => j.state === 'canceled' && since(j.timestamps.canceled)).map((j) => j.id),
    queued: runnableJobs(mine(run, jobs)).map((j) => j.id),
    window: currentWindow(store, max),
    stopped,
  };
}
