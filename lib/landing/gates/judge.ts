// The verdict on one train, from the cheapest source that can give it: the fast-path decision
// for a lone job (cached PASS or accepted proof), the verdict cache for the train's tree, the
// per-gate selection (a path-scoped gate whose files did not change keeps its ancestor's PASS),
// and only then the gates themselves. A PASS that ran gates is recorded as a verdict, a proof and
// per-gate passes, so the next train built on this tree needs none of it again.
import { gatesHash, type LoadedPolicy } from '../../config/index.js';
import { withDetachedWorktree } from '../../git/index.js';
import { findLedgerLine, resolveLedgerDir } from '../../ledger/index.js';
import { nowIso } from '../../queue/index.js';
import type { CachedGateTelemetry, FileStore, GateTelemetry, JobRecord, LedgerObservation, LedgerObservations, RanGateTelemetry, VerdictRecord } from '../../store/index.js';
import type { BuiltTrain } from '../trains/buildTrain.js';
import type { Emit } from '../events.js';
import { fastPathDecision } from '../proofs/fastPath.js';
import { runGates, type GateFailure } from './gateRunner.js';
import { LogSink } from './logSink.js';
import { recordProof } from '../proofs/proof.js';
import { runRefresh } from './refresh.js';
import { recordGatePasses, selectGates } from './selection.js';
import { cachedVerdict, storeVerdict } from './verdictCache.js';

export interface Judgement {
  verdict: 'PASS' | 'FAIL' | 'INFRA' | 'STOPPED';
  failure: GateFailure | null;
  cached: boolean;
  seconds: number;
  log: string | null;
  telemetry: GateTelemetry;
  /** Ledger lines of batch stages that ran, by gate name. */
  ledger: LedgerObservations | null;
  /** The train after refresh entries (a new commit on top), when they changed it. */
  refreshed: { commit: string; tree: string; entries: string[] } | null;
}

export interface JudgeContext {
  cwd: string;
  store: FileStore;
  emit: Emit;
  abort: AbortSignal;
  counters: { gateRuns: number };
}

export interface TrainIds {
  batchId: string;
  trainId: string;
}

const skipped = (telemetry: CachedGateTelemetry, verdict: 'PASS' | 'FAIL', failure: GateFailure | null, log: string | null): Judgement => ({
  verdict, failure, cached: true, seconds: 0, log, telemetry, ledger: null, refreshed: null,
});

/** Runs `body` in a fresh detached worktree at `commit` (the train dir); `made: false` when git will not make it. */
function withWorktree<T>(ctx: JudgeContext, dir: string, commit: string, body: () => Promise<T>): Promise<{ made: true; value: T } | { made: false; message: string }> {
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
 * The failure a cached FAIL stands for, in the words of the run that judged it and naming that
 * run: "exit 1 (cached: the same tree failed in train X)". Its log is the judgement's log.
 */
function cachedFailure(record: VerdictRecord): GateFailure | null {
  if (record.verdict !== 'FAIL') return null;
  return { kind: 'fail', reason: record.failReason ?? 'gate', gate: record.reason ?? '(cached)', status: `${record.status ?? 'FAIL'} (cached: the same tree failed in train ${record.train})` };
}

/** The gate telemetry of a verdict taken from the cache: whose verdict it was and where its log is. */
function cachedTelemetry(record: VerdictRecord, planBase: string, hash: string): CachedGateTelemetry {
  return { mode: 'cached', source: 'cache', cachedFrom: record.train, cachedVerdict: record.verdict, cachedLog: record.log, planBase, executed: [], gatesHash: hash };
}

export async function judgeTrain(
  ctx: JudgeContext,
  loaded: LoadedPolicy,
  built: BuiltTrain,
  baseTree: string,
  ids: TrainIds,
  members: readonly JobRecord[],
): Promise<Judgement> {
  const logPath = ctx.store.logPath(ids.trainId);
  const log = new LogSink(logPath);
  log.line(`== train ${ids.trainId} at ${built.train} on ${built.base} (${nowIso()}): ${members.map((m) => m.id).join(' ')}`);
  try {
    return await judgeLogged(ctx, loaded, built, baseTree, ids, members, log, logPath);
  } finally {
    await log.close();
  }
}

async function judgeLogged(
  ctx: JudgeContext,
  loaded: LoadedPolicy,
  built: BuiltTrain,
  baseTree: string,
  ids: TrainIds,
  members: readonly JobRecord[],
  log: LogSink,
  logPath: string,
): Promise<Judgement> {
  const { policy } = loaded;
  const hash = gatesHash(policy.gates);
  const lone = members.length === 1 ? (members[0] as JobRecord) : null;

  // A lone job: the same decision the window choice made (cached PASS or accepted proof).
  if (lone && !policy.refresh.length) {
    const decision = await fastPathDecision({ cwd: ctx.cwd, store: ctx.store, policy, base: built.base, baseTree, job: lone });
    if (decision.alone && decision.tree === built.tree) {
      ctx.emit({ type: 'fast_path', job: lone.id, source: decision.proofSource ? `${decision.source}:${decision.proofSource}` : decision.source, tree: decision.tree });
      log.line(`== verdict PASS without a gate: ${decision.source === 'cache' ? 'cached PASS' : `${decision.proofSource ?? ''} proof`} of tree ${decision.tree}`);
      return skipped({ mode: 'cached', source: decision.source, proofSource: decision.proofSource ?? null, planBase: built.base, executed: [], gatesHash: hash }, 'PASS', null, null);
    }
  }
  const cached = cachedVerdict(ctx.store, built.tree, hash, members);
  if (cached) {
    const failure = cachedFailure(cached);
    log.line(`== verdict ${cached.verdict} from the verdict cache: tree ${built.tree} was judged by train ${cached.train}${cached.log ? ` (log ${cached.log})` : ''}`);
    return skipped(cachedTelemetry(cached, built.base, hash), cached.verdict, failure, cached.log);
  }

  const trainEnv = {
    LAND_TIP: built.train,
    LAND_BASE: built.base,
    LAND_JOB: lone ? lone.id : ids.batchId,
    LAND_MEMBERS: members.map((m) => m.id).join(' '),
    LAND_TRAIN: ids.trainId,
  };
  const dir = ctx.store.trainDir(ids.trainId);
  const result = await withWorktree(ctx, dir, built.train, async (): Promise<Judgement> => {
    let train = built.train;
    let tree = built.tree;
    let refreshed: Judgement['refreshed'] = null;
    if (policy.refresh.length) {
      const outcome = await runRefresh({ cwd: ctx.cwd, store: ctx.store, entries: policy.refresh, base: built.base, train, worktree: dir, log, signal: ctx.abort, trainEnv });
      switch (outcome.kind) {
        case 'unchanged': break;
        case 'refreshed':
          refreshed = { commit: outcome.commit, tree: outcome.tree, entries: outcome.entries };
          train = outcome.commit;
          tree = outcome.tree;
          break;
        case 'failed':
          return { verdict: 'FAIL', failure: { kind: 'fail', reason: 'refresh', gate: `refresh "${outcome.entry}"`, status: outcome.status }, cached: false, seconds: 0, log: logPath, telemetry: { mode: 'full', executed: [], refresh: outcome, gatesHash: hash }, ledger: null, refreshed: null };
        case 'stopped':
          return { verdict: 'STOPPED', failure: { kind: 'stopped', gate: `refresh "${outcome.entry}"` }, cached: false, seconds: 0, log: logPath, telemetry: { mode: 'full', executed: [] }, ledger: null, refreshed: null };
        default: {
          const never: never = outcome;
          throw new Error(`unknown refresh outcome ${JSON.stringify(never)}`);
        }
      }
      // A refreshed tree may already be judged.
      const again = refreshed ? cachedVerdict(ctx.store, tree, hash, members) : null;
      if (again) {
        const failure = cachedFailure(again);
        return { ...skipped(cachedTelemetry(again, built.base, hash), again.verdict, failure, again.log), refreshed };
      }
    }

    const plan = await selectGates({ cwd: ctx.cwd, store: ctx.store, gates: policy.gates, base: built.base, train });
    const telemetry: RanGateTelemetry = { ...plan.telemetry, gatesHash: hash, ...(refreshed ? { refreshed: refreshed.entries } : {}) };
    if (!plan.gates.length) {
      recordGatePasses(ctx.store, train, policy.gates, plan.telemetry.cached.map((c) => c.gate));
      log.line(`== verdict PASS without a gate: every gate's last PASS on an ancestor still counts`);
      return { verdict: 'PASS', failure: null, cached: true, seconds: 0, log: logPath, telemetry, ledger: null, refreshed };
    }
    ctx.counters.gateRuns += 1;
    const startedAt = nowIso();
    const run = await runGates({
      gates: plan.gates,
      worktree: dir,
      log,
      signal: ctx.abort,
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
    if (run.verdict === 'PASS' || (run.verdict === 'FAIL' && run.failure?.kind === 'fail')) {
      const fail = run.failure?.kind === 'fail' ? run.failure : null;
      storeVerdict(ctx.store, { tree, gatesHash: hash, verdict: run.verdict, reason: fail?.gate ?? null, status: fail?.status ?? null, failReason: fail?.reason === 'refresh' ? null : (fail?.reason ?? null), seconds: run.seconds, train: ids.trainId, log: logPath });
    }
    if (run.verdict === 'PASS') {
      recordGatePasses(ctx.store, train, policy.gates, [...executed, ...plan.telemetry.cached.map((c) => c.gate)]);
      if (policy.proof.enabled) {
        recordProof(ctx.store, { version: 1, tree, planBaseTree: baseTree, gatesHash: hash, verdict: 'PASS', source: 'train', commit: train, seconds: run.seconds, at: nowIso(), logPath, selection: plan.telemetry, tip: lone ? lone.tip : null });
      }
    }
    return { verdict: run.verdict, failure: run.failure, cached: false, seconds: run.seconds, log: logPath, telemetry, ledger: Object.keys(ledger).length ? ledger : null, refreshed };
  });
  if (result.made) return result.value;
  log.line(`== could not create the gate worktree: ${result.message}`);
  return { verdict: 'INFRA', failure: { kind: 'infra', reason: 'worktree', gate: '(worktree)', status: result.message }, cached: false, seconds: 0, log: logPath, telemetry: { mode: 'full', executed: [], gatesHash: hash }, ledger: null, refreshed: null };
}
