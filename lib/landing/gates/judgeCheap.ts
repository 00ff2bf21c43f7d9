// The cheap verdicts: those that need no worktree and run no gate. For a lone job, the same
// fast-path decision the window choice made (a cached PASS or an accepted proof); else the verdict
// cache for the gated tree. A re-run never asks here (./judge.ts): it asks the gates again.
import type { VerdictRecord } from '../../store/index.js';
import { fastPathDecision } from '../proofs/fastPath.js';
import type { Verdicted } from './gateRunner.js';
import { judgementOf, type Judgement, type RefreshedTrain } from './judgement.js';
import type { FastPathCheck, Judging } from './judging.js';
import { cachedVerdict } from './verdictCache.js';

/**
 * A cached verdict with the failure it stands for, in the words of the run that judged it and
 * naming that run: "exit 1 (cached: the same tree failed in train X)". Its log is the judgement's
 * log, and its telemetry says whose verdict it was and where that run's log is. `refreshed`: the
 * train refresh entries made, whose tree the cache knew.
 */
export function cachedJudgement(record: VerdictRecord, planBase: string, hash: string, refreshed: RefreshedTrain = null): Judgement {
  const outcome: Verdicted =
    record.verdict !== 'FAIL'
      ? { verdict: 'PASS', failure: null }
      : {
          verdict: 'FAIL',
          failure: {
            kind: 'fail',
            reason: record.failReason ?? 'gate',
            gate: record.reason ?? '(cached)',
            status: `${record.status ?? 'FAIL'} (cached: the same tree failed in train ${record.train})`,
          },
        };
  return judgementOf(outcome, {
    cached: true,
    log: record.log,
    telemetry: {
      mode: 'cached',
      source: 'cache',
      cachedFrom: record.train,
      cachedVerdict: record.verdict,
      cachedLog: record.log,
      planBase,
      executed: [],
      gatesHash: hash,
    },
    refreshed,
  });
}

/** A lone job's PASS without a gate: a cached PASS of its tree or an accepted proof (proofs/fastPath.ts). */
async function fastPathJudgement(j: Judging, given: FastPathCheck | null): Promise<Judgement | null> {
  const { ctx, built, lone, hash, log } = j;
  const { policy } = j.loaded;
  if (!lone || policy.refresh.length) return null;
  const decision =
    given && given.job === lone.id && given.base === built.base
      ? given.decision
      : await fastPathDecision({ cwd: ctx.cwd, store: ctx.store, policy, base: built.base, baseTree: j.baseTree, job: lone });
  if (!decision.alone || decision.tree !== built.tree) return null;
  ctx.emit({
    type: 'fast_path',
    job: lone.id,
    source: decision.proofSource ? `${decision.source}:${decision.proofSource}` : decision.source,
    tree: decision.tree,
  });
  log.line(`== verdict PASS without a gate: ${decision.source === 'cache' ? 'cached PASS' : `${decision.proofSource ?? ''} proof`} of tree ${decision.tree}`);
  return judgementOf(
    { verdict: 'PASS', failure: null },
    {
      cached: true,
      log: null,
      telemetry: { mode: 'cached', source: decision.source, proofSource: decision.proofSource ?? null, planBase: built.base, executed: [], gatesHash: hash },
    },
  );
}

/** The verdict that needs no worktree: the fast path for a lone job, else the verdict cache; null: the gates must say. */
export async function cheapVerdict(j: Judging, given: FastPathCheck | null): Promise<Judgement | null> {
  const fast = await fastPathJudgement(j, given);
  if (fast) return fast;
  const cached = cachedVerdict(j.ctx.store, j.gated.tree, j.hash, j.members);
  if (!cached) return null;
  j.log.line(
    `== verdict ${cached.verdict} from the verdict cache: tree ${j.gated.tree} was judged by train ${cached.train}${cached.log ? ` (log ${cached.log})` : ''}`,
  );
  return cachedJudgement(cached, j.built.base, j.hash);
}
