// The seam the pipeline runs a train's gates through when its policy lists ssh executors: a slot
// is taken (gateSlots.ts), and the gates run there: on the drainer as always, or on an ssh
// executor (the commit shipped, the runner started over ssh, its log streamed into the train's
// log). An executor that cannot be reached or is lost is INFRA for that run only: it is marked
// down and the gates run again on another slot, at most once per executor; only when every try
// failed is the train's verdict INFRA (nothing was tested, the members are requeued).
import type { Gate } from '../../config/index.js';
import { gatesHash } from '../../config/index.js';
import type { GateProgress, GateResult, GateRun } from '../gates/gateRunner.js';
import type { LogSink } from '../gates/logSink.js';
import type { GateSlots } from './gateSlots.js';
import type { RemoteOutcome } from './outcome.js';
import { passEnvValues, type ExecutorRequestInput } from './request.js';
import { runOnExecutor } from './remoteRun.js';
import { shipCommit } from './ship.js';
import type { Executor } from './slots.js';
import type { SshExecutor } from './sshArgv.js';

export interface TrainGates {
  executors: readonly Executor[];
  gates: readonly Gate[];
  /** The commit whose tree the gates judge (shipped as it is). */
  commit: string;
  /** The request without its slot and commit: the same for every try. */
  request: Omit<ExecutorRequestInput, 'slot' | 'commit' | 'gates' | 'passEnv'>;
  log: LogSink;
  signal: AbortSignal;
  cwd: string;
  /** The gates on the drainer (a "local" slot). */
  local: () => Promise<GateRun>;
  /** Each gate's start and end on an executor, read from the runner's lines as they stream by (the drain's progress events). */
  onGate?: (event: GateProgress) => void;
}

export async function runTrainGates(slots: GateSlots, t: TrainGates): Promise<GateRun> {
  let avoid: string | undefined;
  let lost = '';
  for (let tries = 0; tries < t.executors.length; tries++) {
    const taken = await slots.take(t.executors, avoid, t.signal);
    if (taken === null) return stopped(t);
    try {
      if (taken.executor.kind === 'local') return await t.local();
      const executor = taken.executor;
      t.log.line(`== gates on ${executor.name}, slot ${taken.slot}`);
      const seen = new GateLines(t.gates, t.onGate);
      const outcome = await remoteTry(slots, t, executor, taken.slot, seen);
      if (outcome.kind !== 'infra' || !outcome.down) slots.up(executor.name);
      if (outcome.kind !== 'infra') return gateRunOf(outcome, t, seen);
      if (outcome.down) slots.down(executor.name, outcome.detail);
      t.log.line(`== ${executor.name}: INFRA, nothing was tested (${outcome.detail})${outcome.down ? '; marked down for a while' : ''}`);
      lost = `${executor.name}: ${outcome.detail}`;
      avoid = executor.name;
    } finally {
      slots.give(taken);
    }
  }
  const failure = { kind: 'infra' as const, reason: 'gate_not_started' as const, gate: '(executor)', status: lost };
  return { verdict: 'INFRA', failure, results: [], seconds: 0 };
}

/** One try on an ssh executor: its cache repository, the commit shipped, the runner's run. */
async function remoteTry(slots: GateSlots, t: TrainGates, executor: SshExecutor, slot: number, seen: GateLines): Promise<RemoteOutcome> {
  const prepared = await slots.prepare(executor);
  if (prepared !== null) return prepared;
  const shipped = await shipCommit(t.cwd, slots.settings, executor, t.commit, slot);
  if (shipped.kind === 'infra') return shipped;
  const request = { ...t.request, slot, commit: t.commit, gates: [...t.gates], passEnv: passEnvValues(t.gates, process.env) };
  return runOnExecutor({ settings: slots.settings, executor, request, log: seen.into(t.log), signal: t.signal });
}

/**
 * The runner's `== gate <name>: <status> after <s>s` lines, read from its output as it streams by.
 * The gates' own output streams through the same channel, so a gate (a queued change's code) can
 * print such lines too: only gates of the request count, each once, by its last line (the runner
 * writes a gate's line after the gate has exited), so a forged line can neither add runs to the
 * gates' history nor name a gate that is not in the policy.
 */
export class GateLines {
  private readonly byGate = new Map<string, { name: string; status: string; seconds: number }>();
  private rest = '';

  /** Each gate of the request that ended, once, in the order of its last line. */
  get ended(): { name: string; status: string; seconds: number }[] {
    return [...this.byGate.values()];
  }

  constructor(
    private readonly gates: readonly Pick<Gate, 'name' | 'advisory'>[],
    private readonly onGate?: (event: GateProgress) => void,
  ) {}

  /** The train's log, with this reader on the way in. */
  into(log: LogSink): { write(chunk: Buffer): unknown } {
    return {
      write: (chunk: Buffer) => {
        this.read(chunk.toString());
        return log.write(chunk);
      },
    };
  }

  /** A gate ended: kept for the verdict, and reported (a failure of an advisory gate is not counted: gateRunner.ts). */
  private ends(name: string, status: string, seconds: number): void {
    if (!this.gates.some((gate) => gate.name === name)) return;
    this.byGate.delete(name);
    this.byGate.set(name, { name, status, seconds });
    const failed = status !== 'exit 0' && outcomeOf(status) !== 'spawn_failed' && outcomeOf(status) !== 'stopped';
    const advisory = failed && this.gates.find((gate) => gate.name === name)?.advisory === true;
    this.onGate?.({ phase: 'finished', gate: name, status, seconds, ...(advisory ? { advisory: true } : {}) });
  }

  /** Reads a chunk of the runner's output (lines may span chunks). */
  read(text: string): void {
    const lines = (this.rest + text).split('\n');
    this.rest = lines.pop() ?? '';
    for (const line of lines) {
      const match = /^== gate ([A-Za-z0-9._-]+): (.+) after ([0-9.]+)s$/.exec(line);
      if (match) this.ends(match[1] as string, match[2] as string, Number(match[3]));
      // The runner's line before a gate starts: `== gate <name>: ["argv", ...] (timeout ...)`.
      const started = /^== gate ([A-Za-z0-9._-]+): \[/.exec(line);
      if (started && this.gates.some((gate) => gate.name === started[1])) this.onGate?.({ phase: 'started', gate: started[1] as string });
    }
  }
}

/** How a gate ended, from the status the runner printed (processGroup.ts outcomeText). */
function outcomeOf(status: string): GateResult['outcome'] {
  if (status.startsWith('exit ')) return 'exited';
  if (status.startsWith('signal ')) return 'signaled';
  if (status === 'timed out') return 'timeout';
  if (status === 'stopped') return 'stopped';
  return 'spawn_failed';
}

/** The verdict of a run the runner finished (or the drainer stopped), with the gates it says ended. */
function gateRunOf(outcome: Exclude<RemoteOutcome, { kind: 'infra' }>, t: TrainGates, seen: GateLines): GateRun {
  const results = seen.ended.map((ended) => {
    const gate = t.gates.find((g) => g.name === ended.name);
    const advisory = gate?.advisory === true ? { advisory: true as const } : {};
    return {
      name: ended.name,
      outcome: outcomeOf(ended.status),
      status: ended.status,
      seconds: ended.seconds,
      hash: gate ? gatesHash([gate]) : '',
      ...advisory,
    };
  });
  const seconds = Math.round(results.reduce((sum, r) => sum + r.seconds, 0) * 100) / 100;
  const last = seen.ended.at(-1);
  switch (outcome.kind) {
    case 'pass':
      return { verdict: 'PASS', failure: null, results, seconds };
    case 'fail': {
      const failure = {
        kind: 'fail' as const,
        reason: outcome.reason === 'timeout' ? ('timeout' as const) : ('gate' as const),
        gate: last?.name ?? '(executor)',
        status: last?.status ?? 'failed',
      };
      return { verdict: 'FAIL', failure, results, seconds };
    }
    case 'abandoned':
      return { ...stopped(t), results, seconds };
    default: {
      const never: never = outcome;
      return never;
    }
  }
}

function stopped(t: TrainGates): GateRun {
  return { verdict: 'STOPPED', failure: { kind: 'stopped', gate: t.gates[0]?.name ?? '(executor)' }, results: [], seconds: 0 };
}
