// Runs a policy's gates, in order, in a train's worktree. The first gate that does not pass
// decides the verdict; what kind of "not pass" it was decides what the drainer does next.
import { landEntry } from '../../landEntry.js';
import { gatesHash, type Gate } from '../../config/index.js';
import type { GateResult, InfraReason } from '../../store/index.js';
import { gateEnvironment, secretsOf, type TrainEnv } from './gateEnv.js';
import type { LogSink } from './logSink.js';
import { outcomeText as statusText, runInGroup, type GroupOutcome } from './processGroup.js';
import { failpoint } from '../../failpoint.js';
import { sandboxForRun, type Isolation } from './sandbox.js';
import { countedFailure } from './advisory.js';

/** The code under test failed: bisect, or fail a singleton. */
export type GateFail = { kind: 'fail'; reason: 'gate' | 'timeout' | 'no_ledger_line' | 'refresh'; gate: string; status: string };
/** The policy refused to run the batch: fail the train, no bisection. */
export type GateRefusal = { kind: 'refused'; reason: 'policy_refused'; gate: string; status: string };
/**
 * Nothing was tested (could not start, no lane, no ledger store): requeue, no bisection.
 * `stderr` is the gate's last stderr line ("sh: 1: mytset: not found"), secrets redacted.
 */
export type InfraFailure = { kind: 'infra'; reason: InfraReason; gate: string; status: string; stderr?: string | null };
/** A stop request or signal ended the run: the result says nothing. */
export type GateStop = { kind: 'stopped'; gate: string };

/** How a gate ended, in the terms the drain loop acts on. */
export type GateFailure = GateFail | GateRefusal | InfraFailure | GateStop;

/** A verdict and the failure that goes with it: PASS has none, each other verdict its own kind. */
export type Verdicted =
  | { verdict: 'PASS'; failure: null }
  | { verdict: 'FAIL'; failure: GateFail | GateRefusal }
  | { verdict: 'INFRA'; failure: InfraFailure }
  | { verdict: 'STOPPED'; failure: GateStop };

/** The verdict a failure stands for (null: PASS). */
export function verdictOf(failure: GateFailure | null): Verdicted {
  if (failure === null) return { verdict: 'PASS', failure: null };
  switch (failure.kind) {
    case 'fail':
    case 'refused':
      return { verdict: 'FAIL', failure };
    case 'infra':
      return { verdict: 'INFRA', failure };
    case 'stopped':
      return { verdict: 'STOPPED', failure };
    default: {
      const never: never = failure;
      return never;
    }
  }
}

/** One gate that ran, as the telemetry keeps it (declared with the job record, lib/store/formats/gateRecords.ts). */
export type { GateResult };

export type GateRun = Verdicted & {
  results: GateResult[];
  seconds: number;
};

function argvOf(run: string | readonly string[]): string[] {
  return typeof run === 'string' ? ['sh', '-c', run] : [...run];
}

/** The argv a gate runs as (a batch stage runs through `land batch`). */
export function commandOf(gate: Gate): string[] {
  if (!gate.batch) return argvOf(gate.run);
  return [process.execPath, landEntry(), 'batch', '--job', gate.batch.job, '--measure-dir', gate.batch.measureDir, '--', ...argvOf(gate.run)];
}

/** Maps one gate's ending onto the verdict vocabulary; null means it passed. */
export function classify(gate: Gate, outcome: GroupOutcome): GateFailure | null {
  const status = statusText(outcome);
  switch (outcome.kind) {
    case 'exited':
      if (outcome.code === 0) return null;
      if (gate.batch) {
        if (outcome.code === 2) return { kind: 'refused', reason: 'policy_refused', gate: gate.name, status };
        if (outcome.code === 3) return { kind: 'infra', reason: 'no_lane', gate: gate.name, status };
        if (outcome.code === 4) return { kind: 'infra', reason: 'no_ledger_store', gate: gate.name, status };
        if (outcome.code === 5) return { kind: 'fail', reason: 'no_ledger_line', gate: gate.name, status };
      }
      // sh's "command not found" / "not executable": the gate never ran the code under test.
      if (outcome.code === 127 || outcome.code === 126) return { kind: 'infra', reason: 'gate_not_started', gate: gate.name, status };
      return { kind: 'fail', reason: 'gate', gate: gate.name, status };
    case 'signaled':
      return { kind: 'fail', reason: 'gate', gate: gate.name, status };
    case 'timeout':
      return { kind: 'fail', reason: 'timeout', gate: gate.name, status };
    case 'stopped':
      return { kind: 'stopped', gate: gate.name };
    case 'spawn_failed':
      return { kind: 'infra', reason: 'gate_not_started', gate: gate.name, status };
    default: {
      const never: never = outcome;
      return never;
    }
  }
}

/** A gate's start or end, as the drain reports it (`gate_started`, `gate_finished`); `advisory`: it failed and the policy marks it advisory, so its failure is not counted. */
export type GateProgress = { phase: 'started' | 'finished'; gate: string; status?: string; seconds?: number; advisory?: boolean };

export async function runGates(opts: {
  gates: readonly Gate[];
  worktree: string;
  train: TrainEnv;
  log: LogSink;
  signal?: AbortSignal;
  /** The worktree is land's own (GroupCommand.ownsCwd): what still works in it after a gate is killed. */
  ownsWorktree?: boolean;
  /** How the gates are isolated (./sandbox.ts); absent or null: unsandboxed. */
  isolation?: Isolation | null;
  /** The environment the allow-list and passEnv read (default this process's): an executor's runner adds the drainer's passEnv values. */
  from?: NodeJS.ProcessEnv;
  onGate?: (event: GateProgress) => void;
}): Promise<GateRun> {
  const results: GateResult[] = [];
  let total = 0;
  for (const gate of opts.gates) {
    const argv = commandOf(gate);
    opts.log.setSecrets(secretsOf(gate, opts.from));
    const sandbox = sandboxForRun(opts.isolation, gate, opts.worktree, opts.log);
    const how = sandbox ? `, sandboxed${sandbox.network ? ' with network' : ''}` : '';
    opts.log.line(`== gate ${gate.name}: ${JSON.stringify(argv)} (timeout ${gate.timeoutSeconds}s${how})`);
    opts.onGate?.({ phase: 'started', gate: gate.name });
    const running = runInGroup({
      argv,
      cwd: opts.worktree,
      env: gateEnvironment(gate, opts.train, opts.from),
      timeoutSeconds: gate.timeoutSeconds,
      output: opts.log,
      signal: opts.signal,
      ownsCwd: opts.ownsWorktree,
      sandbox,
    });
    failpoint('mid-gate'); // the gate's process has started: runInGroup spawns it before its first await
    const outcome = await running;
    total += outcome.seconds;
    const status = statusText(outcome);
    opts.log.line(`== gate ${gate.name}: ${status} after ${outcome.seconds}s`);
    const advisory = gate.advisory === true ? { advisory: true as const } : {};
    results.push({ name: gate.name, outcome: outcome.kind, status, seconds: outcome.seconds, hash: gatesHash([gate]), ...advisory });
    const classified = classify(gate, outcome);
    const counted = countedFailure(gate, classified);
    const uncounted = classified !== null && counted === null;
    opts.onGate?.({ phase: 'finished', gate: gate.name, status, seconds: outcome.seconds, ...(uncounted ? { advisory: true } : {}) });
    if (uncounted) opts.log.line(`== gate ${gate.name} is advisory (policy): its failure is recorded, not counted`);
    // Why a gate never ran the code under test is usually in its last words on stderr.
    const failure = counted?.kind === 'infra' && outcome.lastStderrLine ? { ...counted, stderr: opts.log.redact(outcome.lastStderrLine) } : counted;
    if (failure) return { ...verdictOf(failure), results, seconds: Math.round(total * 100) / 100 };
  }
  return { ...verdictOf(null), results, seconds: Math.round(total * 100) / 100 };
}
