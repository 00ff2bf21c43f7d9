// What a train's gates decided, recorded so the next train built on this tree needs none of it
// again: the verdict (PASS, or a gate's FAIL) in the verdict cache, and for a PASS the per-gate
// passes on the train commit and a proof. All keyed by the gated tree: a verdict is about the
// content that was tested. Each write goes through the context's keeper (./judging.ts keep).
import { nowIso } from '../../queue/index.js';
import type { SelectionTelemetry } from '../../store/index.js';
import { recordProof } from '../proofs/proof.js';
import type { GateRun } from './gateRunner.js';
import { keep, type Judging } from './judging.js';
import { recordGatePasses } from './selection.js';
import { storeVerdict } from './verdictCache.js';

/**
 * Per-gate passes are recorded on the train commit. When its trusted paths were restored the gates
 * did not see that commit's machinery: none are recorded, so the next train's selection looks back
 * past it and sees the trusted paths changed (docs/policy.md#trusted).
 */
export function recordPasses(j: Judging, train: string, gates: readonly string[]): void {
  if (!j.gated.restored.length) keep(j.ctx, () => recordGatePasses(j.ctx.store, train, j.loaded.policy.gates, gates));
}

/** The gates' run on `train` (whose gated tree is `tree`): `ran` are the gates that ran, `selection` what kept the others. */
export function recordOutcome(j: Judging, done: { train: string; tree: string; run: GateRun; selection: SelectionTelemetry; ran: readonly string[] }): void {
  const { ctx, hash, logPath } = j;
  const { train, tree, run, selection } = done;
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
        train: j.ids.trainId,
        log: logPath,
      }),
    );
  }
  if (run.verdict !== 'PASS') return;
  recordPasses(j, train, [...done.ran, ...selection.cached.map((c) => c.gate)]);
  if (!j.loaded.policy.proof.enabled) return;
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
      selection,
      tip: j.lone ? j.lone.tip : null,
    }),
  );
}
