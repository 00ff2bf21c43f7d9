// Estimates from history: how long a gate usually takes (for `land run`'s progress) and when a
// queued job may land (for `land status`). Pure: the rows come from metrics.jsonl, read by the
// caller through the store; nothing here reads a file or a clock.
import { gatesHash, type Gate } from '../../config/index.js';
import { gateResultField, isRecord, metricsRowField } from '../../store/index.js';

/** How many of the latest measurements an estimate looks at: old runs stop counting. */
export const HISTORY_KEPT = 50;

/** Gate durations recorded in metrics.jsonl: per gated train, and per gate name. */
export interface GateHistory {
  /** Total gate seconds of each train that ran its gates (not judged from the cache), oldest first. */
  trainSeconds: number[];
  /** Seconds of each recorded run of a gate, by gate name, oldest first. */
  gateSeconds: Record<string, number[]>;
}

/** What a queue estimate rests on, shown beside it so a reader can judge it. */
export interface EtaBasis {
  /** Median total gate time of the latest gated trains; null when no train has run its gates. */
  medianTrainSeconds: number | null;
  /** How many trains the median was taken over. */
  trainsMeasured: number;
  /** The window the estimate assumes; null when it is unknown (no readable policy). */
  window: number | null;
  /** A train is running now: it goes first. */
  runningTrain: boolean;
  /** Why there is no estimate (null when there is one). */
  reason: string | null;
}

export const NO_HISTORY = 'no history yet (no train has run its gates)';

const isSeconds = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** Outcomes whose duration says nothing about the gate (it never ran, or a signal cut it short). */
const NOT_MEASURED = new Set(['spawn_failed', 'stopped']);

/**
 * The gates a history is read for: the policy's gates hash (a train's total) and each gate's own
 * hash (`gatesHash([gate])`, its expected time), so a gate whose command changed starts afresh.
 */
export interface GatesInForce {
  gatesHash: string;
  /** By gate name. */
  gateHashes: Record<string, string>;
}

export function gatesInForce(gates: readonly Gate[]): GatesInForce {
  return { gatesHash: gatesHash(gates), gateHashes: Object.fromEntries(gates.map((gate) => [gate.name, gatesHash([gate])])) };
}

/**
 * Whether a recorded hash is the one in force: `current`, `unknown` (rows written before the hash
 * was recorded: counted only while no measurement under the current hash exists) or `other`.
 */
type Match = 'current' | 'unknown' | 'other';
const matchOf = (recorded: string | undefined, now: string | undefined): Match =>
  recorded === undefined || now === undefined ? 'unknown' : recorded === now ? 'current' : 'other';

/** Measurements kept apart by how their hash matches, oldest first; the current ones win when there are any. */
class Measured {
  private readonly current: number[] = [];
  private readonly unknown: number[] = [];
  add(match: Match, seconds: number): void {
    if (match !== 'other') (match === 'current' ? this.current : this.unknown).push(seconds);
  }
  values(): number[] {
    return this.current.length ? this.current : this.unknown;
  }
}

/** The gates hash a row was judged under (`gate.gatesHash`), when it recorded one. */
function rowGatesHash(gate: unknown): string | undefined {
  return isRecord(gate) && typeof gate.gatesHash === 'string' ? gate.gatesHash : undefined;
}

/**
 * Reads gate durations out of metrics rows (`{ cached, verdict, gateSeconds, gate: { gatesHash,
 * results: [{ name, hash, outcome, status, seconds }] } }`). Rows judged from the cache, rows of
 * trains whose gates could not run (INFRA), rows of void runs (VOID: stopped part-way) and rows that do not have the expected shape are left
 * out. With `inForce`, a train counts only under the current gates hash and a gate's run only under
 * that gate's current hash (a run that recorded none, by its row's gates hash); rows that recorded
 * no hash at all count only while nothing was measured under the current one.
 */
export function gateHistoryFromMetrics(rows: readonly unknown[], inForce: GatesInForce | null = null): GateHistory {
  const trains = new Measured();
  const gates = new Map<string, Measured>();
  for (const row of rows) {
    if (!isRecord(row) || metricsRowField(row, 'cached') === true || metricsRowField(row, 'verdict') === 'INFRA' || metricsRowField(row, 'verdict') === 'VOID')
      continue;
    const gate = row.gate; // read field by field: rows of earlier versions lack some
    const results = isRecord(gate) && Array.isArray(gate.results) ? gate.results.filter(isRecord) : [];
    const rowMatch = inForce ? matchOf(rowGatesHash(gate), inForce.gatesHash) : 'current';
    let total = 0;
    let measured = 0;
    for (const result of results) {
      const name = gateResultField(result, 'name');
      const seconds = gateResultField(result, 'seconds');
      if (name === undefined || !isSeconds(seconds)) continue;
      total += seconds;
      measured += 1;
      const outcome = gateResultField(result, 'outcome');
      if (outcome !== undefined && NOT_MEASURED.has(outcome)) continue;
      // A run without its own hash (written before runs recorded one) is judged by its row's hash.
      const hash = gateResultField(result, 'hash');
      const match = inForce && hash !== undefined ? matchOf(hash, inForce.gateHashes[name]) : rowMatch;
      const runs = gates.get(name) ?? new Measured();
      gates.set(name, runs);
      runs.add(match, seconds);
    }
    const recorded = metricsRowField(row, 'gateSeconds');
    if (measured) trains.add(rowMatch, isSeconds(recorded) ? recorded : total);
  }
  const gateSeconds: Record<string, number[]> = {};
  for (const [name, runs] of gates) if (runs.values().length) gateSeconds[name] = runs.values();
  return { trainSeconds: trains.values(), gateSeconds };
}

/** The median of the latest HISTORY_KEPT values; null for none. */
export function recentMedian(values: readonly number[]): number | null {
  const recent = [...values.slice(-HISTORY_KEPT)].sort((a, b) => a - b);
  if (!recent.length) return null;
  const mid = Math.floor(recent.length / 2);
  const value = recent.length % 2 ? (recent[mid] as number) : ((recent[mid - 1] as number) + (recent[mid] as number)) / 2;
  return Math.round(value * 100) / 100;
}

/** How long gate `name` usually runs: the median of its recorded runs; null with no history. */
export function expectedGateSeconds(history: GateHistory, name: string): number | null {
  return recentMedian(history.gateSeconds[name] ?? []);
}

export const NO_WINDOW = 'the window is unknown (the policy cannot be read)';

/** A remote queue whose lease nobody holds: the estimate would say when a drainer that does not run lands the job. */
export const NO_DRAINER = "no drainer holds the queue's lease now: nothing lands until one runs `land run`";

/**
 * What the estimates rest on. `drainerRunning` false (a remote queue's lease released or never
 * taken) gives no estimate; a clone's own queue cannot tell, and passes true.
 */
export function etaBasis(history: GateHistory, window: number | null, runningTrain: boolean, opts: { drainerRunning?: boolean } = {}): EtaBasis {
  const medianTrainSeconds = recentMedian(history.trainSeconds);
  const why = opts.drainerRunning === false ? NO_DRAINER : medianTrainSeconds === null ? NO_HISTORY : window === null ? NO_WINDOW : null;
  return {
    medianTrainSeconds,
    trainsMeasured: Math.min(history.trainSeconds.length, HISTORY_KEPT),
    window: window === null ? null : Math.max(1, Math.floor(window)),
    runningTrain,
    reason: why,
  };
}

/**
 * Trains that run before the job at queue position `position` (1-based) has landed, its own
 * included: it rides train ⌈position / window⌉, after the running train if there is one.
 */
export function trainsUntilLanded(position: number, window: number, runningTrain: boolean): number {
  return Math.ceil(position / Math.max(1, window)) + (runningTrain ? 1 : 0);
}

/**
 * Seconds until the job at queue position `position` may land: trains ahead × the median train.
 * A rough figure: bisections, conflicts and a window that moves all change it. Null without history.
 */
export function etaSeconds(position: number, basis: EtaBasis): number | null {
  if (basis.reason !== null || basis.medianTrainSeconds === null || basis.window === null || !Number.isInteger(position) || position < 1) return null;
  return Math.round(trainsUntilLanded(position, basis.window, basis.runningTrain) * basis.medianTrainSeconds);
}
