// Each gate's flake history as the drain weighs a failed run (plan/flakeEvidence.ts): its clean
// runs and its flakes. Read from this clone's own metrics rows (lib/stats/flakeTally.ts, the one
// description of a flake that `land stats` and `land flaky` show) the first time a run fails, not
// before: a drain whose gates only pass never reads its history. Once read, this drain's own runs
// are added as they end (their rows are not read again), so a flake seen in one train counts for
// the next; before, they are left to the read, which finds their rows.
import type { GateRun, QueueStore } from '../store/index.js';
import { trainRowsOf } from '../stats/history.js';
import { flakeTally, gateEvidenceOf } from '../stats/flakeTally.js';
import { NO_EVIDENCE, type GateEvidence } from './plan/flakeEvidence.js';
import { flakeOf } from './plan/flakyPlan.js';

export interface FlakeHistory {
  /** What the history (and this drain's runs so far) says about `gate`. */
  evidence(gate: string): GateEvidence;
  /**
   * A train's runs as they ended (oldest first), on `tree`: its fresh passes, and its failed runs
   * when a PASS followed them (a flake) or when the train behind cleared it (`cleared`).
   */
  record(runs: readonly GateRun[], tree: string, cleared?: boolean): void;
}

/** The drain's history: read from the store once, when first asked. */
export class DrainFlakeHistory implements FlakeHistory {
  private read: Map<string, GateEvidence> | null = null;
  private readonly added = new Map<string, GateEvidence>();

  constructor(private readonly readAll: () => Map<string, GateEvidence>) {}

  evidence(gate: string): GateEvidence {
    this.read ??= this.readAll();
    const known = this.read.get(gate) ?? NO_EVIDENCE;
    const mine = this.added.get(gate) ?? NO_EVIDENCE;
    return { passed: known.passed + mine.passed, flakes: known.flakes + mine.flakes };
  }

  record(runs: readonly GateRun[], tree: string, cleared = false): void {
    if (this.read === null) return;
    // Cleared by the train behind (pipeline/clearing.ts): its fresh failed runs count as flakes, as the stored tally counts them.
    if (cleared) for (const run of runs) if (!run.cached && run.verdict === 'FAIL' && run.gate) this.add(run.gate, { passed: 0, flakes: 1 });
    for (const run of runs) {
      if (run.cached) continue;
      for (const result of run.results)
        if (!result.advisory && result.status === 'exit 0' && result.outcome === 'exited') this.add(result.name, { passed: 1, flakes: 0 });
    }
    // A PASS after FAILs of the same tree: each of them was a failed run of a good tree (a cached
    // one stands for the earlier fresh run that judged it, counted as no flake until now).
    const flake = flakeOf(runs, tree);
    if (flake) this.add(flake.gate, { passed: 0, flakes: runs.filter((run) => run.verdict === 'FAIL' && run.gate === flake.gate).length });
  }

  private add(gate: string, more: GateEvidence): void {
    const was = this.added.get(gate) ?? NO_EVIDENCE;
    this.added.set(gate, { passed: was.passed + more.passed, flakes: was.flakes + more.flakes });
  }
}

/**
 * Each gate's evidence from this clone's own metrics rows (judged and void). In a queue kept in a
 * remote, rows another clone published (or forged there) are shown by `land flaky` and `land stats`
 * but never weighed: nothing is decided from the published history (docs/remote.md).
 */
export function storedFlakeEvidence(store: QueueStore): Map<string, GateEvidence> {
  return gateEvidenceOf(flakeTally(trainRowsOf(store.readOwnMetrics().rows).rows));
}
