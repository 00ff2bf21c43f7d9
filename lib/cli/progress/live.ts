// The live block of `land run` on a terminal, as pure functions: the state the events leave
// behind, and the few lines that state is drawn as. The reporter owns the clock and the terminal.
import type { DrainEvent, JobNames } from '../../landing/events.js';
import { duration } from '../../text/duration.js';
import { approximately } from '../output.js';

export interface LiveState {
  target: string | null;
  train: { id: string; attempt: number; members: string[]; kind: string } | null;
  /** The running gate: when it started (ms, the reporter's clock) and its usual duration. */
  gate: { name: string; log: string; startedAt: number; expectedSeconds: number | null } | null;
  /** What the drainer does when no gate runs ("verdict PASS", "waiting for company"). */
  activity: string | null;
  window: number | null;
  queued: number | null;
  /** Trains gating behind the shown one (speculative trains and probes, batch.parallel): their gates are not shown. */
  behind?: string[];
}

const isBehind = (state: LiveState, train: string) => state.behind?.includes(train) === true;
const addBehind = (state: LiveState, train: string): LiveState => ({ ...state, behind: [...(state.behind ?? []).slice(-15), train] });

export const initialLiveState = (window: number | null = null): LiveState => ({ target: null, train: null, gate: null, activity: null, window, queued: null });

/** Events shown in the live block only; every other event (landed, failed, bisected, requeued, warnings...) is a permanent line. */
const LIVE_ONLY: ReadonlySet<DrainEvent['type']> = new Set([
  'drain_started',
  'train_built',
  'gate_started',
  'gate_finished',
  'verdict',
  'window',
  'waiting_for_company',
  'idle',
]);

export function isPermanent(event: DrainEvent): boolean {
  if (event.type === 'verdict') return event.verdict !== 'PASS'; // a failure and its log stay on screen
  if (event.type === 'train_built' && event.onTrain) return true; // a speculative train (batch.parallel) is said once; the block shows the head
  return !LIVE_ONLY.has(event.type);
}

/** The state after `event`, seen at `now`; `expected` gives a gate's usual seconds. */
export function nextLiveState(state: LiveState, event: DrainEvent, now: number, expected: (gate: string) => number | null): LiveState {
  switch (event.type) {
    case 'drain_started':
      return { ...state, target: event.target };
    case 'waiting_for_company':
      return { ...state, activity: `waiting up to ${event.seconds}s for company` };
    case 'train_built':
      if (event.onTrain && state.train) return addBehind(state, event.train); // the block follows the head train
      return { ...state, train: { id: event.train, attempt: event.attempt, members: event.members, kind: event.kind }, gate: null, activity: 'gating' };
    case 'gate_started':
      if (state.train?.id !== event.train && isBehind(state, event.train)) return state; // a speculative train's or a probe's gate
      return { ...state, gate: { name: event.gate, log: event.log, startedAt: now, expectedSeconds: expected(event.gate) } };
    case 'gate_finished':
      if (state.train?.id !== event.train && isBehind(state, event.train)) return state;
      return { ...state, gate: null, activity: `gate ${event.gate}: ${event.status}${event.advisory ? ' (advisory, not counted)' : ''}` };
    case 'verdict':
      return { ...state, gate: null, activity: `verdict ${event.verdict}${event.cached ? ' (cached)' : ''}` };
    case 'window':
      return { ...state, window: event.after };
    case 'idle':
      return {
        ...state,
        train: null,
        gate: null,
        activity: `queue empty; waiting for submissions${event.idleExitSeconds === null ? '' : ` (idle-exit after ${event.idleExitSeconds}s)`}`,
      };
    case 'resumed':
      return { ...state, activity: null };
    case 'probe_started':
      return addBehind(state, event.train);
    case 'checking_target':
      return { ...state, gate: null, activity: `gating ${event.target} itself at ${event.base.slice(0, 12)}` };
    case 'backing_off':
      return { ...state, train: null, gate: null, activity: `infrastructure failure; waiting ${event.seconds}s before the next train` };
    case 'landed':
    case 'bisected':
      return { ...state, train: null, gate: null, activity: null };
    case 'requeued':
      return event.train !== null && event.train === state.train?.id ? { ...state, train: null, gate: null, activity: null } : state;
    case 'failed':
      return state.train?.members.length === 1 && state.train.members[0] === event.job ? { ...state, train: null, gate: null, activity: null } : state;
    default:
      return state;
  }
}

/** `gate test running 12s (expected ~30s)`, or `(no history)` before the gate ever ran. */
export function gateProgress(gate: NonNullable<LiveState['gate']>, now: number): string {
  const elapsed = duration((now - gate.startedAt) / 1000);
  return `gate ${gate.name} running ${elapsed} (${gate.expectedSeconds === null ? 'no history' : `expected ${approximately(gate.expectedSeconds)}`})`;
}

/** The plain-output heartbeat while a gate runs: `  gate test running 1m30s; log <path>`. */
export function heartbeatLine(gate: { name: string; log: string }, seconds: number): string {
  return `  gate ${gate.name} running ${duration(seconds)}; log ${gate.log}`;
}

/** A line cut to the terminal's width, so that the block never wraps (wrapping breaks the redraw). */
export function fit(line: string, columns: number): string {
  const width = Math.max(10, columns - 1);
  const chars = [...line];
  return chars.length <= width ? line : `${chars.slice(0, width - 1).join('')}…`;
}

/** The live block: the train, the gate (or what happens instead), the window and the queue. */
export function liveLines(state: LiveState, now: number, names: JobNames): string[] {
  const lines: string[] = [];
  if (state.train) {
    const members = state.train.members.map((job) => names(job) ?? job).join(', ');
    lines.push(`train ${state.train.id} round ${state.train.attempt}: ${members}`);
    if (state.gate) lines.push(`  ${gateProgress(state.gate, now)}`);
    else if (state.activity) lines.push(`  ${state.activity}`);
  } else {
    lines.push(state.activity ?? 'looking for the next train');
  }
  const window = state.window === null ? 'window ?' : `window ${state.window}`;
  const queued = state.queued === null ? '' : `, ${state.queued} queued`;
  lines.push(`${state.target ? `onto ${state.target}: ` : ''}${window}${queued}`);
  return lines;
}

export type Tone = 'good' | 'bad' | 'warn' | 'plain';

/** How a permanent line is coloured. */
export function toneOf(event: DrainEvent): Tone {
  switch (event.type) {
    case 'landed':
    case 'published':
      return 'good';
    case 'failed':
    case 'corrupt_record':
      return 'bad';
    case 'record_rebuilt':
      return 'warn';
    case 'verdict':
      return event.verdict === 'PASS' ? 'good' : 'bad';
    case 'target_checked':
      return event.verdict === 'FAIL' ? 'bad' : 'plain';
    case 'backing_off':
    case 'bisected':
    case 'requeued':
    case 'warning':
    case 'stopping':
    case 'publish_rejected':
    case 'member_skipped':
    case 'train_abandoned':
      return 'warn';
    default:
      return 'plain';
  }
}
