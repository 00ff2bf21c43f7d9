// What a train's judging is given (the drain's context and the train) and what each of its stages
// works with (./judge.ts runs the stages: cheap verdicts, the worktree, the gates, the record).
import type { LoadedPolicy } from '../../config/index.js';
import type { QueueStore, JobRecord } from '../../store/index.js';
import type { Emit } from '../events.js';
import type { FastPathDecision } from '../proofs/fastPath.js';
import type { BuiltTrain } from '../trains/buildTrain.js';
import type { LogSink } from './logSink.js';
import type { Isolation, SandboxHost } from './sandbox.js';
import type { Gated } from './trusted.js';
import type { WorktreePool } from './worktreePool.js';
import type { GateSlots } from '../executors/gateSlots.js';

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
  /** The drain's gate worktrees, kept from train to train (./worktreePool.ts); absent: a fresh one per train. */
  worktrees?: WorktreePool;
  /** The drain's gate slots across its executors (executors/gateSlots.ts); absent: every gate runs here. */
  slots?: GateSlots;
}

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

/** The train to judge. */
export interface JudgeOptions {
  loaded: LoadedPolicy;
  built: BuiltTrain;
  /** The tree of the target tip the train is built on. */
  baseTree: string;
  ids: TrainIds;
  /** The riders, in merge order; none when the target tip itself is judged (./targetCheck.ts). */
  members: readonly JobRecord[];
  /** The drain's fast-path decision for a lone job, when it made one (else it is made here). */
  fastPath?: FastPathCheck | null;
  /** A flaky re-run (its number within the train): the gates run again, whatever the caches say. */
  rerun?: number | null;
}

/** Everything one judgement works with. */
export interface Judging {
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
  rerun: number | null;
  /** The tree the gates see (trusted paths restored); replaced when refresh entries change the train. */
  gated: Gated;
  /** Which member changes which trusted path. */
  trustedByJob: Record<string, string[]>;
  /** The sandbox the train's commands run in (./sandbox.ts). */
  isolation: Isolation;
}

/** Runs a verdict-cache, proof or per-gate pass write now, or hands it to the context's keeper. */
export const keep = (ctx: JudgeContext, write: () => void): void => (ctx.keep ? ctx.keep(write) : write());
