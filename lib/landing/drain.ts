// `land run`: the drain loop. One drainer per repository (the drain lock), recovery of whatever
// a dead drainer left in_progress, then one admitted batch after another until no job is
// runnable. Every decision is written to disk before the next step starts.
import { loadPolicy } from '../config/index.js';
import { branchTip, treeOf } from '../git/index.js';
import { applyChanges, jobTarget, nowIso } from '../queue/index.js';
import { runnableJobs } from '../queue/index.js';
import type { Policy } from '../config/index.js';
import type { FastPathRecord, FileStore, JobRecord } from '../store/index.js';
import type { Emit } from './events.js';
import { fastPathDecision } from './proofs/fastPath.js';
import { recoverInProgress } from './recovery.js';
import { runBatch, type DrainContext } from './trains/runBatch.js';
import { planTrain } from './plan/trainPlan.js';
import { IdleWatch, type WatchOptions } from './watch.js';
import { currentWindow } from './window.js';

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
}

export interface DrainSummary {
  type: 'summary';
  trains: number;
  gateRuns: number;
  landed: string[];
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

/** With batch.waitSeconds, a lone job waits for company before gating alone. */
async function waitForCompany(store: FileStore, seconds: number, head: JobRecord, emit: Emit, stop: () => boolean, mine: (jobs: readonly JobRecord[]) => JobRecord[]): Promise<void> {
  emit({ type: 'waiting_for_company', job: head.id, seconds });
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline && !stop()) {
    await sleep(Math.min(500, Math.max(10, deadline - Date.now())));
    if (runnableJobs(mine(store.listJobs().jobs)).length > 1) return;
  }
}

const refusalOf = (decision: FastPathRecord): string | null => (decision.alone ? null : decision.refusal);

/**
 * The window choice's half of the fast path: a head job whose tip is already proven (or whose
 * tree has a cached PASS) on the current target rides alone. The refusal, when there is one, is
 * kept on the job so `land show` can say why it was gated.
 */
async function headLandsAlone(cwd: string, store: FileStore, policy: Policy, base: string, head: JobRecord): Promise<boolean> {
  if (head.requeued && head.batch) return false; // the rest of an admitted batch rides together
  const decision = await fastPathDecision({ cwd, store, policy, base, baseTree: await treeOf(cwd, base), job: head });
  const summary: FastPathRecord = decision.alone
    ? { alone: true, source: decision.source, proofSource: decision.proofSource ?? null, tree: decision.tree, base, checkedAt: nowIso() }
    : { alone: false, refusal: decision.refusal, tree: decision.tree, base, checkedAt: nowIso() };
  const previous = head.fastPath;
  if (!previous || previous.alone !== summary.alone || refusalOf(previous) !== refusalOf(summary) || previous.base !== base) {
    await applyChanges(store, [{ id: head.id, from: ['queued'], lenient: true, event: 'fast_path_checked', detail: { ...summary }, patch: { fastPath: summary } }]);
  }
  return decision.alone;
}

export async function drain(cwd: string, store: FileStore, opts: DrainOptions, emit: Emit): Promise<DrainSummary> {
  const initial = await loadPolicy(cwd, opts.target); // a bad policy stops the drain before anything is taken
  const lease = await store.acquireDrainLock({
    wait: opts.wait,
    shouldStop: () => opts.stopAfterTrain() || opts.abort.aborted,
    onWaiting: (holder) => emit({ type: 'warning', message: `waiting for the drain lock held by ${holder ? `pid ${holder.pid} on ${holder.host}` : 'another process'}` }),
  });
  const startedAt = new Date().toISOString();
  const ctx: DrainContext = { cwd, store, emit, token: lease.holder.token, abort: opts.abort, target: opts.target, counters: { trains: 0, gateRuns: 0 } };
  let stopped: DrainSummary['stopped'] = null;
  const reported = new Set<string>();
  let onceBatch: string | null = null;
  // Only the jobs submitted for this drain's target ride its trains.
  const mine = (jobs: readonly JobRecord[]) => jobs.filter((job) => jobTarget(job, initial.target) === initial.target);
  let infraInARow = 0;
  const idle = opts.watch ? new IdleWatch(store, opts.watch, emit, initial.target) : null;
  store.writeToken(lease.holder.token);
  try {
    emit({ type: 'drain_started', pid: process.pid, target: initial.target });
    const tip = await branchTip(cwd, initial.target);
    if (tip) await recoverInProgress({ cwd, store, targetTip: tip, emit });
    for (;;) {
      if (opts.stopAfterTrain() || opts.abort.aborted) {
        if (idle?.idle) {
          idle.end('signal'); // nothing was running and nothing is runnable: a clean stop
          break;
        }
        stopped = { why: 'interrupted', message: 'stopped by a signal at a train boundary' };
        break;
      }
      const compromised = lease.compromised();
      if (compromised) {
        stopped = { why: 'lock_lost', message: `the drain lock was lost: ${compromised.message}` };
        break;
      }
      const version = idle ? store.jobsVersion() : ''; // before the listing: a later change wakes the wait
      const loaded = await loadPolicy(cwd, opts.target);
      const listing = store.listJobs();
      for (const bad of listing.corrupt) {
        if (reported.has(bad.file)) continue;
        reported.add(bad.file);
        emit({ type: 'corrupt_record', file: bad.file, problem: bad.problem });
      }
      let runnable = runnableJobs(mine(listing.jobs));
      if (!runnable.length) {
        if (!idle) break;
        const wake = await idle.waitForWork(version, () => opts.stopAfterTrain() || opts.abort.aborted || lease.compromised() !== null);
        if (wake === 'idle_exit') break;
        continue; // a change or a stop: the loop's top decides
      }
      idle?.resume(runnable.length);
      let window = currentWindow(store, loaded.policy.batch.max);
      if (loaded.policy.batch.waitSeconds > 0 && window > 1 && runnable.length === 1 && !runnable[0]?.requeued) {
        await waitForCompany(store, loaded.policy.batch.waitSeconds, runnable[0] as JobRecord, emit, opts.stopAfterTrain, mine);
        runnable = runnableJobs(mine(store.listJobs().jobs));
        window = currentWindow(store, loaded.policy.batch.max);
        if (!runnable.length) continue; // the lone job was canceled while it waited
      }
      const head = runnable[0] as JobRecord;
      const alone = await headLandsAlone(cwd, store, loaded.policy, loaded.tip, head);
      const members = alone ? [head] : planTrain(runnable, window);
      if (!members.length) break;
      if (opts.stopAfterTrain() || opts.abort.aborted) {
        stopped = { why: 'interrupted', message: 'stopped by a signal at a train boundary' };
        break;
      }
      let outcome: Awaited<ReturnType<typeof runBatch>>;
      try {
        outcome = await runBatch(ctx, members);
      } catch (error) {
        // Whatever went wrong, no job stays in_progress behind this drainer: each is decided
        // against git now (landed if its train is in the target, else back to the queue).
        const tipNow = await branchTip(cwd, loaded.target).catch(() => null);
        if (tipNow) await recoverInProgress({ cwd, store, targetTip: tipNow, emit }).catch(() => undefined);
        throw error;
      }
      // Nothing was tested: wait before trying again (1 s, 2 s, 4 s ... at most 30 s), so a lane
      // or store that is briefly away does not use up every job's retries.infra at once.
      const infra = outcome.kind === 'done' ? outcome.infra : undefined;
      infraInARow = infra ? infraInARow + 1 : 0;
      if (infra && runnableJobs(mine(store.listJobs().jobs)).length > 0) {
        const seconds = Math.min(30, 2 ** (infraInARow - 1));
        emit({ type: 'backing_off', seconds, reason: infra });
        await pause(seconds * 1000, () => opts.stopAfterTrain() || opts.abort.aborted);
      }
      if (outcome.kind === 'stop') {
        stopped = { why: outcome.why, message: outcome.message };
        break;
      }
      // --once: one admitted batch, to the end of its bisection (its halves come back first).
      if (opts.once) {
        onceBatch ??= members[0]?.batch?.id ?? store.readJob((members[0] as JobRecord).id)?.batch?.id ?? null;
        const next = runnableJobs(mine(store.listJobs().jobs))[0];
        if (!next || !onceBatch || !next.requeued || next.batch?.id !== onceBatch || next.reason === 'cas_lost') break;
      }
    }
  } finally {
    if (store.readToken() === lease.holder.token) store.writeToken(null);
    await lease.release();
  }
  const { jobs } = store.listJobs();
  const since = (stamp: string | undefined) => stamp !== undefined && stamp >= startedAt;
  return {
    type: 'summary',
    trains: ctx.counters.trains,
    gateRuns: ctx.counters.gateRuns,
    landed: jobs.filter((j) => j.state === 'landed' && since(j.timestamps.landed)).map((j) => j.id),
    failed: jobs.filter((j) => j.state === 'failed' && since(j.timestamps.failed)).map((j) => j.id),
    canceled: jobs.filter((j) => j.state === 'canceled' && since(j.timestamps.canceled)).map((j) => j.id),
    queued: runnableJobs(mine(jobs)).map((j) => j.id),
    window: currentWindow(store, (await loadPolicy(cwd, opts.target).catch(() => initial)).policy.batch.max),
    stopped,
  };
}
