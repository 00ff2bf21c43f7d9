// The persisted window (window.json): read clamped to the policy, changed with a history entry.
// The history also records what each train decided (plan/windowPlan.ts sizes the window from it).
import { isLandError } from '../errors.js';
import { nowIso } from '../queue/index.js';
import type { QueueStore, WindowHistoryEntry, WindowState } from '../store/index.js';
import { addTally, clampWindow, EMPTY_TALLY, initialWindow, tallyOf, windowFor, type CulpritTally, type WindowEvent } from './plan/windowPlan.js';

const HISTORY_KEPT = 50;

export function currentWindow(store: QueueStore, max: number): number {
  const state = store.readWindow();
  return state ? clampWindow(state.size, max) : initialWindow(max);
}

/** What the window history records as decided (since the last reset): the culprit rate's counts. */
export function recordedTally(store: QueueStore): CulpritTally {
  return tallyOf(store.readWindow()?.history ?? []);
}

/** The persisted window, or null when it is missing or corrupt (for the commands that replace it). */
function readReplaceable(store: QueueStore): WindowState | null {
  try {
    return store.readWindow();
  } catch (error) {
    if (isLandError(error, 'corrupt')) return null;
    throw error;
  }
}

function record(
  store: QueueStore,
  change: { before: number; after: number; event: WindowHistoryEntry['event']; train: string | null; by?: string; decided?: CulpritTally },
  previous = readReplaceable(store),
): WindowState {
  const { before, after, event, train, by, decided } = change;
  const entry: WindowHistoryEntry = {
    at: nowIso(),
    event,
    before,
    after,
    train,
    ...(by === undefined ? {} : { by }),
    ...(decided ? { jobs: decided.jobs, culprits: decided.culprits } : {}),
  };
  const state: WindowState = { size: after, history: [...(previous?.history ?? []), entry].slice(-HISTORY_KEPT) };
  store.writeWindow(state);
  return state;
}

/**
 * Applies a train's verdict to the window: `decided` is what the train decided (its landed members,
 * or its one culprit), recorded in the history; the size becomes the one for the culprit rate of
 * everything recorded. Without `decided` the rate is unchanged. Returns the sizes before and after.
 */
export function bumpWindow(
  store: QueueStore,
  event: WindowEvent,
  max: number,
  train: string | null,
  decided?: CulpritTally,
): { before: number; after: number } {
  const previous = store.readWindow(); // corrupt: the train's settlement stops, as currentWindow does
  const before = previous ? clampWindow(previous.size, max) : initialWindow(max);
  const total = addTally(tallyOf(previous?.history ?? []), decided ?? EMPTY_TALLY);
  const after = total.jobs > 0 ? windowFor(total, max) : before;
  record(store, { before, after, event, train, ...(decided ? { decided } : {}) }, previous);
  return { before, after };
}

/**
 * A maintainer's `land window --set`: the size asked, clamped to batch.max when the policy is
 * known (`clamped` says whether it was). `by` is who asked, kept in the history. The next train
 * takes it; the next verdict sizes the window from the culprit rate again.
 */
export function setWindow(store: QueueStore, size: number, max: number | null, by: string): { state: WindowState; clamped: boolean } {
  const persisted = readReplaceable(store);
  const before = max === null ? (persisted?.size ?? size) : clampWindow(persisted?.size ?? initialWindow(max), max);
  const asked = Math.max(1, Math.floor(size));
  const after = max === null ? asked : clampWindow(size, max);
  return { state: record(store, { before, after, event: 'set', train: null, by }, persisted), clamped: after !== asked };
}

/** `land window --reset`: back to batch.max, and the recorded culprit rate is forgotten. */
export function resetWindow(store: QueueStore, max: number | null, by: string): WindowState {
  const persisted = readReplaceable(store);
  const before = persisted?.size ?? 1;
  const after = max === null ? 1 : initialWindow(max);
  return record(store, { before, after, event: 'reset', train: null, by }, persisted);
}
