// The train's checkout, made ready for its gates: a detached worktree at the train commit, pinned
// before any of the change's code runs in it; the refresh entries run first (a failed or stopped
// one decides, and so does the verdict cache for a tree they changed); then the trusted paths are
// restored from the target and the gates run (./judgeGates.ts). A checkout that cannot be made or
// prepared is an INFRA verdict: nothing was tested.
import { pinWorktree, withDetachedWorktree, type PinnedWorktree, type WorktreeRun } from '../../git/index.js';
import type { TrainEnv } from './gateEnv.js';
import { judgeCheckout } from './judgeGates.js';
import { cachedJudgement } from './judgeCheap.js';
import { judgementOf, type Judgement, type RefreshedTrain } from './judgement.js';
import type { Judging } from './judging.js';
import { runRefresh } from './refresh.js';
import { gatedTreeOf, restoreTrustedInWorktree } from './trusted.js';
import { cachedVerdict } from './verdictCache.js';

/** The train's checkout runs its refresh entries and its gates. */
export async function judgeInWorktree(j: Judging): Promise<Judgement> {
  const { ctx, built, ids, lone } = j;
  const trainEnv = {
    LAND_TIP: built.train,
    LAND_BASE: built.base,
    LAND_JOB: lone ? lone.id : ids.batchId,
    LAND_MEMBERS: j.members.map((m) => m.id).join(' '),
    LAND_TRAIN: ids.trainId,
  };
  const body = async (pinned: PinnedWorktree): Promise<Judgement> => {
    const refreshed = await refreshInWorktree(j, pinned, trainEnv);
    if (refreshed.kind === 'judged') return refreshed.judgement;
    const notRestored = await restoreTrusted(j, pinned);
    if (notRestored !== null) return notMade(j, notRestored);
    return judgeCheckout(j, pinned.dir, trainEnv, refreshed.refreshed);
  };
  const result = ctx.worktrees ? await ctx.worktrees.withWorktree(built.train, body) : await inFreshWorktree(j, body);
  return result.made ? result.value : notMade(j, result.message);
}

/** Without the drain's pool (a re-run outside a drain): a worktree of the train's own, removed after it. */
function inFreshWorktree(j: Judging, body: (pinned: PinnedWorktree) => Promise<Judgement>): Promise<WorktreeRun<Judgement>> {
  const { ctx, built, ids } = j;
  const dir = ctx.store.trainDir(ids.trainId);
  // Pinned before any of the change's code runs in it: land's git there afterwards uses this git folder.
  return withDetachedWorktree(ctx.cwd, dir, built.train, () => body(pinWorktree(dir)), { onCleanup: (left) => ctx.store.removeTrainDir(left) });
}

/** The train's checkout could not be made (or prepared): nothing was tested. */
function notMade(j: Judging, message: string): Judgement {
  j.log.line(`== could not create the gate worktree: ${message}`);
  return judgementOf(
    { verdict: 'INFRA', failure: { kind: 'infra', reason: 'worktree', gate: '(worktree)', status: message } },
    { cached: false, log: j.logPath, telemetry: { mode: 'full', executed: [], gatesHash: j.hash } },
  );
}

/** Refresh entries run first; a failed or stopped one, or a refreshed tree already judged, decides. */
async function refreshInWorktree(
  j: Judging,
  pinned: PinnedWorktree,
  trainEnv: TrainEnv,
): Promise<{ kind: 'judged'; judgement: Judgement } | { kind: 'go'; refreshed: RefreshedTrain }> {
  const { ctx, built, hash, log, logPath } = j;
  const { policy } = j.loaded;
  if (!policy.refresh.length) return { kind: 'go', refreshed: null };
  const outcome = await runRefresh({
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
      return { kind: 'judged', judgement: cachedJudgement(again, built.base, hash, refreshed) };
    }
    case 'failed': {
      const failure = { kind: 'fail' as const, reason: 'refresh' as const, gate: `refresh "${outcome.entry}"`, status: outcome.status };
      const telemetry = { mode: 'full' as const, executed: [], refresh: outcome, gatesHash: hash };
      return { kind: 'judged', judgement: judgementOf({ verdict: 'FAIL', failure }, { cached: false, log: logPath, telemetry }) };
    }
    case 'stopped': {
      const failure = { kind: 'stopped' as const, gate: `refresh "${outcome.entry}"` };
      return {
        kind: 'judged',
        judgement: judgementOf({ verdict: 'STOPPED', failure }, { cached: false, log: logPath, telemetry: { mode: 'full', executed: [] } }),
      };
    }
    default: {
      const never: never = outcome;
      throw new Error(`unknown refresh outcome ${JSON.stringify(never)}`);
    }
  }
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
