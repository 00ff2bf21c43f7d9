// `land run`: the drain loop. One drainer per repository (the drain lock), recovery of whatever
// a dead drainer left in_progress, then one admitted batch after another until no job is
// runnable. Every decision is written to disk before the next step starts. Each pass reads the
// job listing (queueRead.ts) and the policy once and hands them down to the batch it runs.
import { DrainFlakeHistory, storedFlakeEvidence } from './flakeHistory.js';
import { loadTargetPolicy, targetTip } from './targetPolicy.js';
import type { LoadedPolicy } from '../config/index.js';
import { isLandError } from '../errors.js';
import { openCatFileSession, treeOf } from '../git/index.js';
import { WorktreePool } from './gates/worktreePool.js';
import { GateSlots } from './executors/gateSlots.js';
import { healthFile } from './executors/health.js';
import { sshSettings } from './executors/sshArgv.js';
import { endUnsynced, jobTarget, runnableJobs } from '../queue/index.js';
import type { DrainLease, QueueStore, JobRecord } from '../store/index.js';
import type { Emit } from './events.js';
import { headFastPath } from './proofs/headFastPath.js';
import { QueueReader, type QueueRead } from './queueRead.js';
import { recoverInProgress } from './recovery.js';
import { admitTips } from './trains/admitTips.js';
import { runTrains, type BatchOutcome, type DrainContext, type PassView } from './trains/runTrains.js';
import { planTrain } from './plan/trainPlan.js';
import { runPipeline } from './pipeline/pipeline.js';
import { IdleWatch, type WatchOptions } from './watch.js';
import { currentWindow } from './window.js';
import { gateIsolationWarning, type SandboxHost } from './gates/sandbox.js';
import { recheckVoidedTarget } from './gates/targetFirst.js';
import { summarizeDrain, type DrainSummary, type Stopped } from './drainSummary.js';
import { dirtyTargetStop } from './targetCheckout.js';
import { Notifier } from './notify/notifier.js';
import { stoppedByError } from './notify/notifications.js';

export type { DrainSummary } from './drainSummary.js';

export interface DrainOptions {
  /** One admitted batch (with its bisection), then stop. */
  once: boolean;
  /** Wait for the drain lock instead of failing with `busy`. */
  wait: boolean;
  /** First signal: stop at the next train boundary. */
  stopAfterTrain: () => boolean;
  /** Second signal: kill the running gate; members are requeued. */
  abort: AbortSignal;
  /** The drain's target branch, resolved by the command (lib/cli/openQueue.ts). */
  target: string;
  /** The policy at the target's tip as the command read it; absent: the drain reads it first. */
  policy?: LoadedPolicy;
  /** `--watch`: wait for submissions instead of stopping when nothing is runnable. */
  watch?: WatchOptions | null;
  /** The gates' sandbox, resolved once by the command (gates/sandboxHost.ts). */
  sandbox: SandboxHost;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sleeps up to `ms`, returning early once `stop()` holds. */
async function pause(ms: number, stop: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !stop()) await sleep(Math.min(100, deadline - Date.now()));
}

/** One drain: what every pass works with. */
interface DrainRun {
  ctx: DrainContext;
  opts: DrainOptions;
  lease: DrainLease;
  idle: IdleWatch | null;
  /** The queue's listings, and their repairs (queueRead.ts). */
  queue: QueueReader;
}

/** Only the jobs submitted for the drain's target ride its trains. */
const mine = (run: DrainRun, jobs: readonly JobRecord[]) => jobs.filter((job) => jobTarget(job, run.ctx.target) === run.ctx.target);
const runnableOf = (run: DrainRun, queue: QueueRead) => runnableJobs(mine(run, queue.jobs));
const stopAsked = (run: DrainRun) => run.opts.stopAfterTrain() || run.opts.abort.aborted;
const interrupted: Stopped = { why: 'interrupted', message: 'stopped by a signal at a train boundary' };

/** With batch.waitSeconds, a lone job waits for company before gating alone; returns the queue as it is then. */
async function waitForCompany(run: DrainRun, seconds: number, head: JobRecord): Promise<QueueRead> {
  run.ctx.emit({ type: 'waiting_for_company', job: head.id, seconds });
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline && !run.opts.stopAfterTrain()) {
    await sleep(Math.min(500, Math.max(10, deadline - Date.now())));
    const queue = await run.queue.read();
    if (runnableOf(run, queue).length > 1) return queue;
  }
  return run.queue.read();
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
    loaded = await run.ctx.reloadPolicy(); // the target may have moved meanwhile
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
    runnable: async () => runnableOf(run, await run.queue.read()),
  };
  return runPipeline(run.ctx, opts, pass, members);
}

/** Runs one batch (or, with batch.parallel, a pipeline of trains); whatever goes wrong, no job stays in_progress behind this drainer. */
async function runBatchRecovering(run: DrainRun, pass: PassView, members: readonly JobRecord[]): Promise<BatchOutcome> {
  const { ctx } = run;
  try {
    return pass.loaded.policy.batch.parallel > 1 ? await runParallel(run, pass, members) : await runTrains(ctx, pass, members);
  } catch (error) {
    if (ctx.store.stateFolderVanished()) throw run.queue.stateVanishedError();
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
  /** Whether the target's voided FAIL was asked about (once per drain, gates/targetFirst.ts). */
  targetAsked: boolean;
  /**
   * Whether the target's checkout was found clean since the drain started or last woke from idle
   * (targetCheckout.ts). Not before every train: each landing checks it again anyway, and the two
   * git processes per train were a tenth of a short train's cost.
   */
  checkoutClean: boolean;
}

/** After a batch: reads the queue for the next pass; false when --once has run its batch. */
async function afterBatch(run: DrainRun, between: Between, outcome: BatchOutcome & { kind: 'done' }): Promise<boolean> {
  let queue = await run.queue.read();
  // Nothing was tested: wait before trying again (1 s, 2 s, 4 s ... at most 30 s), so a lane
  // or store that is briefly away does not use up every job's retries.infra at once.
  between.infraInARow = outcome.infra ? between.infraInARow + 1 : 0;
  if (outcome.infra && runnableOf(run, queue).length > 0) {
    const seconds = Math.min(30, 2 ** (between.infraInARow - 1));
    run.ctx.emit({ type: 'backing_off', seconds, reason: outcome.infra });
    await pause(seconds * 1000, () => stopAsked(run));
    queue = await run.queue.read(); // the queue as the pause left it
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
  const between: Between = { queue: null, infraInARow: 0, onceBatch: null, targetAsked: false, checkoutClean: false };
  for (;;) {
    if (run.ctx.store.stateFolderVanished()) throw run.queue.stateVanishedError();
    const stop = boundaryStop(run);
    if (stop !== undefined) return stop;
    const queue = between.queue ?? (await run.queue.read());
    between.queue = null;
    const runnable = runnableOf(run, queue);
    if (!runnable.length) {
      if (!run.idle) return null;
      const wake = await run.idle.waitForWork(queue.version, () => stopAsked(run) || run.lease.compromised() !== null);
      if (wake === 'idle_exit') return null;
      between.checkoutClean = false; // hours may have passed: look at the checkout again
      continue; // a change or a stop: the loop's top decides
    }
    run.idle?.resume(runnable.length);
    // Read once per pass, and only when there is work: an idle watcher runs no git while it waits.
    const loaded = await run.ctx.reloadPolicy();
    gateIsolationWarning(loaded.policy, run.ctx.sandbox); // throws when gates cannot run under the policy now in force
    if (!between.checkoutClean) {
      const dirty = await dirtyTargetStop(run.ctx.cwd, run.ctx.store, run.ctx.target); // before any gate, not after them
      if (dirty) return dirty;
      between.checkoutClean = true;
    }
    if (!between.targetAsked) {
      between.targetAsked = true;
      const red = await recheckVoidedTarget(run.ctx, loaded, await treeOf(run.ctx.cwd, loaded.tip), runnable[0] as JobRecord);
      if (red !== undefined) return red;
    }
    const chosen = await chooseTrain(run, { loaded, queue, runnable });
    if (chosen === 'again') continue;
    if (!chosen.members.length) return null;
    if (stopAsked(run)) return interrupted;
    const outcome = await runBatchRecovering(run, chosen.pass, chosen.members);
    if (run.ctx.store.stateFolderVanished()) throw run.queue.stateVanishedError();
    if (outcome.kind === 'stop' && outcome.why === 'lock_lost') throwIfRemoteGaveUp(run);
    if (outcome.kind === 'stop') return { why: outcome.why, message: outcome.message };
    if (!(await afterBatch(run, between, outcome))) return null;
  }
}

export async function drain(cwd: string, store: QueueStore, opts: DrainOptions, emit: Emit): Promise<DrainSummary> {
  // One cat-file for the whole drain: the target's tip, its policy and trees between trains.
  const session = openCatFileSession(cwd);
  try {
    return await drainHeld(cwd, store, opts, emit);
  } finally {
    await session.close();
  }
}

/**
 * The records this drain wrote without fsync, made durable and the mark removed. A failure leaves
 * the mark for the next drain's start, which settles it (lib/queue/unsyncedWrites.ts).
 */
function syncUnsynced(store: QueueStore): void {
  try {
    endUnsynced(store);
  } catch {
    // the mark stays: the next drain fsyncs (or, after a restart, checks) what it covers
  }
}

async function drainHeld(cwd: string, store: QueueStore, opts: DrainOptions, emit: Emit): Promise<DrainSummary> {
  // Read again for each pass (the target moves): the policy in force is the one at its tip now.
  let inForce: LoadedPolicy | null = opts.policy ?? null; // the latest read: the notifier's policy
  const reloadPolicy = async (): Promise<LoadedPolicy> => {
    inForce = await loadTargetPolicy(cwd, store, opts.target, inForce);
    return inForce;
  };
  const initial = inForce ?? (await reloadPolicy()); // a bad policy stops the drain before anything is taken
  const notifier = new Notifier({ store, target: opts.target, sandbox: opts.sandbox, policy: () => (inForce ?? initial).policy, warn: emit });
  const isolation = gateIsolationWarning(initial.policy, opts.sandbox);
  const lease = await store.acquireDrainLock({
    wait: opts.wait,
    shouldStop: () => opts.stopAfterTrain() || opts.abort.aborted,
    onWaiting: (holder) =>
      emit({
        type: 'warning',
        message: `waiting for ${store.drainLockName} held by ${holder ? `pid ${holder.pid} on ${holder.host}` : 'another process'}`,
      }),
  });
  if (lease.takeover) emit({ type: 'warning', message: lease.takeover });
  const startedAt = new Date().toISOString();
  const journalStart = store.journalMark().size; // the summary reads only the jobs named after it
  const noting: Emit = (event) => {
    if (event.type === 'train_built') run.queue.trainBuilt(event.train, event.members);
    emit(event);
    notifier.hear(event);
  };
  const ctx: DrainContext = {
    cwd,
    store,
    emit: noting,
    holds: lease.holds,
    abort: opts.abort,
    target: opts.target,
    reloadPolicy,
    counters: { trains: 0, gateRuns: 0 },
    sandbox: opts.sandbox,
    tipChecks: new Map(),
    startedAt,
    flakes: new DrainFlakeHistory(() => storedFlakeEvidence(store)),
    worktrees: new WorktreePool(cwd, store),
    slots: new GateSlots(sshSettings(process.env), Date.now, (health) => store.writeExecutorHealth(healthFile(health, Date.now()))),
  };
  const run: DrainRun = {
    ctx,
    opts,
    lease,
    idle: opts.watch ? new IdleWatch(store, opts.watch, emit, opts.target) : null,
    queue: new QueueReader(store, emit, { watching: Boolean(opts.watch), shouldStop: () => stopAsked(run) || lease.compromised() !== null }),
  };
  let stopped: Stopped = null;
  // A token file left by a drainer that died mid-landing authorizes nothing (its process is
  // gone); it is removed all the same. Each landing writes its own token's hash.
  store.clearToken();
  try {
    emit({ type: 'drain_started', pid: process.pid, target: opts.target });
    if (isolation) emit({ type: 'warning', message: isolation });
    store.removeStaleTempFiles();
    await run.queue.beginUnsynced();
    await run.queue.rebuildMissing();
    const tip = await targetTip(cwd, store, opts.target);
    if (tip) await recoverInProgress({ cwd, store, targetTip: tip, emit: noting, target: store.movesLocalTarget ? opts.target : undefined });
    stopped = await drainPasses(run);
    if (stopped) notifier.stopped(stopped);
  } catch (error) {
    notifier.stopped(stoppedByError(error));
    throw error;
  } finally {
    // A leftover is the next drain's recovery's. With the state folder gone, git's records of the
    // worktrees that were in it stay: they are what tells `land status` there was a queue here.
    if (!store.stateFolderVanished()) await ctx.worktrees?.close().catch(() => undefined);
    await ctx.slots?.close().catch(() => undefined); // the executors' ssh master connections
    if (!store.stateFolderVanished()) syncUnsynced(store);
    await lease.release();
    await notifier.settle(); // each notifier is bounded by its timeout; none holds a landing back
  }
  const { max } = (await reloadPolicy().catch(() => initial)).policy.batch;
  return summarizeDrain({ store, counters: ctx.counters, target: opts.target, startedAt, journalStart, max, stopped });
}
