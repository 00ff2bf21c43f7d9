// The verdict on one train, from the cheapest source that can give it: the fast-path decision
// for a lone job (cached PASS or accepted proof), the verdict cache for the train's tree, the
// per-gate selection (a path-scoped gate whose files did not change keeps its ancestor's PASS),
// and only then the gates themselves. A PASS that ran gates is recorded as a verdict, a proof and
// per-gate passes, so the next train built on this tree needs none of it again. With trusted paths
// (policy `trusted`, ./trusted.ts) the gates run on the gated tree, and the cache and proofs are
// keyed by it: a verdict is about the content that was tested.
import { gatesHash, type LoadedPolicy } from '../../config/index.js';
import { pinWorktree, withDetachedWorktree, type PinnedWorktree } from '../../git/index.js';
import { findLedgerLine, resolveLedgerDir } from '../../ledger/index.js';
import { nowIso } from '../../queue/index.js';
import type {
  CachedGateTelemetry,
  QueueStore,
  GateTelemetry,
  JobRecord,
  LedgerObservation,
  LedgerObservations,
  RanGateTelemetry,
  VerdictRecord,
} from '../../store/index.js';
import type { BuiltTrain } from '../trains/buildTrain.js';
import type { Emit } from '../events.js';
import { fastPathDecision, type FastPathDecision } from '../proofs/fastPath.js';
import type { TrainEnv } from './gateEnv.js';
import { runGates, type Verdicted } from './gateRunner.js';
import { LogSink } from './logSink.js';
import { gateLogTail } from './logTail.js';
import { recordProof } from '../proofs/proof.js';
import { runRefresh, type RefreshOutcome } from './refresh.js';
import { recordGatePasses, selectGates } from './selection.js';
import { gatedTreeOf, restoreTrustedInWorktree, trustedByMember, trustedTelemetry, type Gated } from './trusted.js';
import { cachedVerdict, storeVerdict } from './verdictCache.js';
import { isolationOf, type Isolation, type SandboxHost } from './sandbox.js';

/** What a judgement found besides its verdict. */
interface JudgementFacts {
  cached: boolean;
  seconds: number;
  log: string | null;
  telemetry: GateTelemetry;
  /** Ledger lines of batch stages that ran, by gate name. */
  ledger: LedgerObservations | null;
  /** The train after refresh entries (a new commit on top), when they changed it. */
  refreshed: { commit: string; tree: string; entries: string[] } | null;
  /**
   * A FAIL or INFRA: the last lines of the deciding gate's output in the stored log (./logTail.ts),
   * for the failed members' records; absent when there is no log on this machine.
   */
  gateLogTail?: string[];
}

/** A train's verdict with the failure that goes with it (none for PASS), and how it was reached. */
export type Judgement = Verdicted & JudgementFacts;

export interface JudgeContext {
  cwd: string;
  store: QueueStore;
  emit: Emit;
  abort: AbortSignal;
  counters: { gateRuns: number };
  /** The sandbox gates run in, resolved once per command (./sandbox.ts); the policy decides the rest. */
  sandbox: SandboxHost;
  /**
   * Where the verdict cache, proof and per-gate pass writes go: run now when absent. A speculative
   * train (batch.parallel) holds them until the train ahead of it has landed, and drops them when
   * it is abandoned: nothing is recorded as the verdict of a train that never counted.
   */
  keep?: (write: () => void) => void;
}

const keep = (ctx: JudgeContext, write: () => void): void => (ctx.keep ? ctx.keep(write) : write());

export interface TrainIds {
  batchId: string;
  trainId: string;
}

/** The fast-path decision the drain already made for a lone job on this base (made once per train). */
export interface FastPathCheck {
  job: string;
  base: string;
  decision: FastPathDecision;
}

const skipped = (telemetry: CachedGateTelemetry, outcome: Verdicted & { verdict: 'PASS' | 'FAIL' }, log: string | null): Judgement => ({
  ...outcome,
  cached: true,
  seconds: 0,
  log,
  telemetry,
  ledger: null,
  refreshed: null,
});

/** Runs `body` in a fresh detached worktree at `commit` (the train dir); `made: false` when git will not make it. */
function withWorktree<T>(
  ctx: JudgeContext,
  dir: string,
  commit: string,
  body: () => Promise<T>,
): Promise<{ made: true; value: T } | { made: false; message: string }> {
  return withDetachedWorktree(ctx.cwd, dir, commit, body, { onCleanup: (left) => ctx.store.removeTrainDir(left) });
}

/** The ledger line a batch stage left, as an observation: an unreadable ledger is reported, not thrown. */
function observeLedgerLine(ledgerDir: string | null, job: string, since: string): LedgerObservation {
  if (!ledgerDir) return { missing: true, ledgerDir: null };
  try {
    return findLedgerLine(ledgerDir, job, since) ?? { missing: true, ledgerDir };
  } catch (error) {
    return { missing: true, ledgerDir, error: (error as Error).message };
  }
}

/**
 * A cached verdict with the failure it stands for, in the words of the run that judged it and
 * naming that run: "exit 1 (cached: the same tree failed in train X)". Its log is the judgement's log.
 */
function cachedOutcome(record: VerdictRecord): Verdicted & { verdict: 'PASS' | 'FAIL' } {
  if (record.verdict !== 'FAIL') return { verdict: 'PASS', failure: null };
  return {
    verdict: 'FAIL',
    failure: {
      kind: 'fail',
      reason: record.failReason ?? 'gate',
      gate: record.reason ?? '(cached)',
      status: `${record.status ?? 'FAIL'} (cached: the same tree failed in train ${record.train})`,
    },
  };
}

/** The gate telemetry of a verdict taken from the cache: whose verdict it was and where its log is. */
function cachedTelemetry(record: VerdictRecord, planBase: string, hash: string): CachedGateTelemetry {
  return {
    mode: 'cached',
    source: 'cache',
    cachedFrom: record.train,
    cachedVerdict: record.verdict,
    cachedLog: record.log,
    planBase,
    executed: [],
    gatesHash: hash,
  };
}

/** Everything one judgement works with. */
interface Judging {
  ctx: JudgeContext;
  loaded: LoadedPolicy;
  built: BuiltTrain;
  baseTree: string;
  ids: TrainIds;
  members: readonly JobRecord[];
  lone: JobRecord | null;
  hash: string;
  log: LogSink;
  logPath: string;
  /** A flaky re-run (its number within the train): the gates run again, whatever the caches say. */
  rerun: number | null;
  /** The tree the gates see (trusted paths restored); replaced when refresh entries change the train. */
  gated: Gated;
  /** Which member changes which trusted path. */
  trustedByJob: Record<string, string[]>;
  /** The sandbox the train's commands run in (./sandbox.ts). */
  isolation: Isolation;
}

export async function judgeTrain(
  ctx: JudgeContext,
  loaded: LoadedPolicy,
  built: BuiltTrain,
  baseTree: string,
  ids: TrainIds,
  members: readonly JobRecord[],
  fastPath: FastPathCheck | null = null,
  rerun: number | null = null,
): Promise<Judgement> {
  const logPath = ctx.store.logPath(ids.trainId);
  const log = new LogSink(logPath, { maxBytes: loaded.policy.logs.maxBytes });
  const ridden = members.map((m) => m.id).join(' ');
  log.line(
    rerun === null
      ? `== train ${ids.trainId} at ${built.train} on ${built.base} (${nowIso()}): ${ridden}`
      : `== run ${rerun} of train ${ids.trainId} at ${built.train} (${nowIso()}): the gates run again on the same tree (retries.flaky)`,
  );
  const lone = members.length === 1 ? (members[0] as JobRecord) : null;
  const gated = await gatedTreeOf(ctx.cwd, loaded.policy, built.base, built.tree);
  const trustedByJob = gated.restored.length ? await trustedByMember(ctx.cwd, loaded.policy, built.base, stepsOf(built)) : {};
  const hash = gatesHash(loaded.policy.gates);
  const isolation = isolationOf(ctx.sandbox, loaded.policy.sandbox);
  const judging: Judging = { ctx, loaded, built, baseTree, ids, members, lone, hash, log, logPath, gated, trustedByJob, rerun, isolation };
  let judgement: Judgement;
  try {
    if (gated.restored.length) log.line(`== trusted paths restored from the target for the gates: ${gated.restored.join(' ')} (gated tree ${gated.tree})`);
    // A re-run asks the gates themselves: the cached FAIL it re-judges is not the answer.
    const cheap = rerun === null ? await judgeWithoutGate(judging, fastPath) : null;
    judgement = withTrusted(judging, cheap ?? (await judgeInWorktree(judging)));
  } finally {
    await log.close();
  }
  return withLogTail(ctx.store, ids.trainId, judgement);
}

/**
 * A FAIL or INFRA carries the last lines of its deciding gate's output, read from the stored log
 * once it is closed: this train's, or for a verdict from the cache the judging train's.
 */
function withLogTail(store: QueueStore, trainId: string, judgement: Judgement): Judgement {
  if (judgement.verdict !== 'FAIL' && judgement.verdict !== 'INFRA') return judgement;
  const { telemetry } = judgement;
  const logId = telemetry.mode === 'cached' ? telemetry.cachedFrom : trainId;
  const tail = logId ? gateLogTail(store, logId, judgement.failure.gate) : null;
  return tail ? { ...judgement, gateLogTail: tail } : judgement;
}

/** The member chain of a train, for trustedByMember. */
function stepsOf(built: BuiltTrain): { job: string; commit: string }[] {
  return built.members.map((m) => ({ job: m.job.id, commit: m.commit }));
}

/** The judgement's telemetry names the trusted paths the gates saw in the target's version. */
function withTrusted(j: Judging, judgement: Judgement): Judgement {
  const trusted = trustedTelemetry(j.gated, j.trustedByJob);
  return trusted ? { ...judgement, telemetry: { ...judgement.telemetry, trusted } } : judgement;
}

/**
 * The verdicts that need no worktree: for a lone job, the same fast-path decision the window
 * choice made (cached PASS or accepted proof), else the verdict cache for the train's tree.
 */
async function judgeWithoutGate(j: Judging, given: FastPathCheck | null): Promise<Judgement | null> {
  const { ctx, built, lone, hash, log } = j;
  const { policy } = j.loaded;
  if (lone && !policy.refresh.length) {
    const decision =
      given && given.job === lone.id && given.base === built.base
        ? given.decision
        : await fastPathDecision({ cwd: ctx.cwd, store: ctx.store, policy, base: built.base, baseTree: j.baseTree, job: lone });
    if (decision.alone && decision.tree === built.tree) {
      ctx.emit({
        type: 'fast_path',
        job: lone.id,
        source: decision.proofSource ? `${decision.source}:${decision.proofSource}` : decision.source,
        tree: decision.tree,
      });
      log.line(
        `== verdict PASS without a gate: ${decision.source === 'cache' ? 'cached PASS' : `${decision.proofSource ?? ''} proof`} of tree ${decision.tree}`,
      );
      return skipped(
        { mode: 'cached', source: decision.source, proofSource: decision.proofSource ?? null, planBase: built.base, executed: [], gatesHash: hash },
        { verdict: 'PASS', failure: null },
        null,
      );
    }
  }
  const cached = cachedVerdict(ctx.store, j.gated.tree, hash, j.members);
  if (!cached) return null;
  log.line(
    `== verdict ${cached.verdict} from the verdict cache: tree ${j.gated.tree} was judged by train ${cached.train}${cached.log ? ` (log ${cached.log})` : ''}`,
  );
  return skipped(cachedTelemetry(cached, built.base, hash), cachedOutcome(cached), cached.log);
}

/** The train's checkout runs its refresh entries and its gates. */
async function judgeInWorktree(j: Judging): Promise<Judgement> {
  const { ctx, built, ids, lone } = j;
  const trainEnv = {
    LAND_TIP: built.train,
    LAND_BASE: built.base,
    LAND_JOB: lone ? lone.id : ids.batchId,
    LAND_MEMBERS: j.members.map((m) => m.id).join(' '),
    LAND_TRAIN: ids.trainId,
  };
  const dir = ctx.store.trainDir(ids.trainId);
  const result = await withWorktree(ctx, dir, built.train, async (): Promise<Judgement> => {
    // Before any of the change's code runs in it: land's git there afterwards uses this git folder.
    const pinned = pinWorktree(dir);
    const refreshed = await refreshInWorktree(j, pinned, trainEnv);
    if (refreshed.kind === 'judged') return refreshed.judgement;
    const notRestored = await restoreTrusted(j, pinned);
    if (notRestored !== null) return infraJudgement(j, notRestored);
    return gateInWorktree(j, dir, trainEnv, refreshed.refreshed);
  });
  if (result.made) return result.value;
  return infraJudgement(j, result.message);
}

/** The train's checkout could not be made (or prepared): nothing was tested. */
function infraJudgement(j: Judging, message: string): Judgement {
  j.log.line(`== could not create the gate worktree: ${message}`);
  return {
    verdict: 'INFRA',
    failure: { kind: 'infra', reason: 'worktree', gate: '(worktree)', status: message },
    cached: false,
    seconds: 0,
    log: j.logPath,
    telemetry: { mode: 'full', executed: [], gatesHash: j.hash },
    ledger: null,
    refreshed: null,
  };
}

type Refreshed = JudgementFacts['refreshed'];

/** Refresh entries run first; a failed or stopped one, or a refreshed tree already judged, decides. */
async function refreshInWorktree(
  j: Judging,
  pinned: PinnedWorktree,
  trainEnv: TrainEnv,
): Promise<{ kind: 'judged'; judgement: Judgement } | { kind: 'go'; refreshed: Refreshed }> {
  const { ctx, built, hash, log, logPath } = j;
  const { policy } = j.loaded;
  if (!policy.refresh.length) return { kind: 'go', refreshed: null };
  const outcome: RefreshOutcome = await runRefresh({
    cwd: ctx.cwd,
    store: ctx.store,
    entries: policy.refresh,
    base: built.base,
    train: built.train,
    worktree: pinned.dir,
    pinned,
    ownsWorktree: true,
    log,
    signal: ctx.abort,
    trainEnv,
    isolation: j.isolation,
  });
  switch (outcome.kind) {
    case 'unchanged':
      return { kind: 'go', refreshed: null };
    case 'refreshed': {
      const refreshed = { commit: outcome.commit, tree: outcome.tree, entries: outcome.entries };
      j.gated = await gatedTreeOf(ctx.cwd, policy, built.base, outcome.tree);
      // A refreshed tree may already be judged (a re-run asks the gates again).
      const again = j.rerun === null ? cachedVerdict(ctx.store, j.gated.tree, hash, j.members) : null;
      if (!again) return { kind: 'go', refreshed };
      return { kind: 'judged', judgement: { ...skipped(cachedTelemetry(again, built.base, hash), cachedOutcome(again), again.log), refreshed } };
    }
    case 'failed':
      return {
        kind: 'judged',
        judgement: {
          verdict: 'FAIL',
          failure: { kind: 'fail', reason: 'refresh', gate: `refresh "${outcome.entry}"`, status: outcome.status },
          cached: false,
          seconds: 0,
          log: logPath,
          telemetry: { mode: 'full', executed: [], refresh: outcome, gatesHash: hash },
          ledger: null,
          refreshed: null,
        },
      };
    case 'stopped':
      return {
        kind: 'judged',
        judgement: {
          verdict: 'STOPPED',
          failure: { kind: 'stopped', gate: `refresh "${outcome.entry}"` },
          cached: false,
          seconds: 0,
          log: logPath,
          telemetry: { mode: 'full', executed: [] },
          ledger: null,
          refreshed: null,
        },
      };
    default: {
      const never: never = outcome;
      throw new Error(`unknown refresh outcome ${JSON.stringify(never)}`);
    }
  }
}

/**
 * Per-gate passes are recorded on the train commit. When its trusted paths were restored the gates
 * did not see that commit's machinery: none are recorded, so the next train's selection looks back
 * past it and sees the trusted paths changed (docs/policy.md#trusted).
 */
function recordPasses(j: Judging, train: string, gates: readonly string[]): void {
  if (!j.gated.restored.length) keep(j.ctx, () => recordGatePasses(j.ctx.store, train, j.loaded.policy.gates, gates));
}

/** The trusted paths restored in the checkout before the gates; an error message when git would not. */
async function restoreTrusted(j: Judging, pinned: PinnedWorktree): Promise<string | null> {
  try {
    await restoreTrustedInWorktree(pinned.dir, j.gated, pinned);
    return null;
  } catch (error) {
    return `could not restore the trusted paths: ${(error as Error).message}`;
  }
}

/** The gates the selection keeps run on the (refreshed) train; what they decide is recorded. */
async function gateInWorktree(j: Judging, dir: string, trainEnv: TrainEnv, refreshed: Refreshed): Promise<Judgement> {
  const { ctx, built, ids, hash, log, logPath } = j;
  const { policy } = j.loaded;
  const train = refreshed ? refreshed.commit : built.train;
  // The gates run on the gated tree (trusted paths restored): verdict and proof are about it.
  const tree = j.gated.tree;
  const plan = await selectGates({ cwd: ctx.cwd, store: ctx.store, gates: policy.gates, base: built.base, train, gated: tree });
  const telemetry: RanGateTelemetry = { ...plan.telemetry, gatesHash: hash, ...(refreshed ? { refreshed: refreshed.entries } : {}) };
  if (!plan.gates.length) {
    const stillCounting = plan.telemetry.cached.map((c) => c.gate);
    recordPasses(j, train, stillCounting);
    log.line(`== verdict PASS without a gate: every gate's last PASS on an ancestor still counts`);
    return { verdict: 'PASS', failure: null, cached: true, seconds: 0, log: logPath, telemetry, ledger: null, refreshed };
  }
  ctx.counters.gateRuns += 1;
  const startedAt = nowIso();
  const run = await runGates({
    gates: plan.gates,
    worktree: dir,
    ownsWorktree: true,
    log,
    signal: ctx.abort,
    isolation: j.isolation,
    train: { ...trainEnv, LAND_TIP: train },
    onGate: (e) =>
      e.phase === 'started'
        ? ctx.emit({ type: 'gate_started', train: ids.trainId, gate: e.gate, log: logPath })
        : ctx.emit({ type: 'gate_finished', train: ids.trainId, gate: e.gate, status: e.status ?? '', seconds: e.seconds ?? 0 }),
  });
  const executed = run.results.map((r) => r.name);
  telemetry.executed = executed;
  telemetry.results = run.results;
  const ledger: LedgerObservations = {};
  for (const gate of plan.gates.filter((g) => g.batch && executed.includes(g.name))) {
    ledger[gate.name] = observeLedgerLine(resolveLedgerDir(process.env, policy.ledger, dir), gate.batch?.job ?? '', startedAt);
  }
  if (run.verdict === 'PASS' || (run.verdict === 'FAIL' && run.failure.kind === 'fail')) {
    const fail = run.verdict === 'FAIL' && run.failure.kind === 'fail' ? run.failure : null;
    const verdict = run.verdict;
    keep(ctx, () =>
      storeVerdict(ctx.store, {
        tree,
        gatesHash: hash,
        verdict,
        reason: fail?.gate ?? null,
        status: fail?.status ?? null,
        failReason: fail?.reason === 'refresh' ? null : (fail?.reason ?? null),
        seconds: run.seconds,
        train: ids.trainId,
        log: logPath,
      }),
    );
  }
  if (run.verdict === 'PASS') {
    recordPasses(j, train, [...executed, ...plan.telemetry.cached.map((c) => c.gate)]);
    if (policy.proof.enabled) {
      const planBaseTree = j.baseTree;
      keep(ctx, () =>
        recordProof(ctx.store, {
          version: 1,
          tree,
          planBaseTree,
          gatesHash: hash,
          verdict: 'PASS',
          source: 'train',
          commit: train,
          seconds: run.seconds,
          at: nowIso(),
          logPath,
          selection: plan.telemetry,
          tip: j.lone ? j.lone.tip : null,
        }),
      );
    }
  }
  const { results: _results, seconds, ...outcome } = run;
  return { ...outcome, cached: false, seconds, log: logPath, telemetry, ledger: Object.keys(ledger).length ? ledger : null, refreshed };
}
