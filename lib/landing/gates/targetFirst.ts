// Before a drain's first train: a target whose cached FAIL was voided when a drain stopped for it
// (plan/redEpisode.ts) is gated again first. Red again: the drain stops at once (exit 10) for one
// gate run, instead of replaying a bisection whose FAILs were voided too. Green (the target was
// fixed, or what its gates need was installed): the trains run and judge the jobs afresh.
import { gatesHash, type LoadedPolicy } from '../../config/index.js';
import { newBatchId, nowIso } from '../../queue/index.js';
import type { JobRecord } from '../../store/index.js';
import type { Stopped } from '../drainSummary.js';
import { redTargetMessage } from '../plan/settlement.js';
import { targetCheckedEvent } from '../plan/trainSteps.js';
import type { DrainContext } from '../trains/runTrains.js';
import { checkTarget } from './targetCheck.js';
import { voidRedEpisode } from './verdictCache.js';

/** Undefined: go on with the trains (nothing voided, or the target passes or could not be gated). */
export async function recheckVoidedTarget(ctx: DrainContext, loaded: LoadedPolicy, baseTree: string, head: JobRecord): Promise<Stopped | undefined> {
  const hash = gatesHash(loaded.policy.gates);
  const entry = ctx.store.readVerdict(baseTree, hash);
  if (entry?.verdict !== 'FAIL' || !entry.voided) return undefined;
  const health = await checkTarget(ctx, { loaded, base: loaded.tip, baseTree, batchId: newBatchId(), job: head.id, first: true });
  const checked = targetCheckedEvent(loaded.target, loaded.tip, health);
  ctx.emit(checked.type === 'target_checked' ? { ...checked, first: true } : checked);
  switch (health.kind) {
    case 'red':
      // Voided again: the run after this one asks the target first too.
      voidRedEpisode(ctx.store, { startedAt: ctx.startedAt, now: nowIso(), train: health.train, gatesHash: hash, trees: [baseTree] });
      return { why: 'target_red', message: redTargetMessage(loaded.target, loaded.tip, health) };
    case 'stopped':
      return { why: 'interrupted', message: 'the gate was stopped by a signal' };
    case 'green':
    case 'unknown':
      return undefined;
    default: {
      const never: never = health;
      throw new Error(`unknown target health ${JSON.stringify(never)}`);
    }
  }
}
