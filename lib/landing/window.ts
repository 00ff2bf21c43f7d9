// The persisted window (window.json): read clamped to the policy, changed with a history entry.
import { isLandError } from '../errors.js';
import { nowIso } from '../queue/index.js';
import type { FileStore, WindowHistoryEntry, WindowState } from '../store/index.js';
import { clampWindow, initialWindow, nextWindow, type WindowEvent } from './plan/windowPlan.js';

const HISTORY_KEPT = 50;

export function currentWindow(store: FileStore, max: number): number {
  const state = store.readWindow();
  return state ? clampWindow(state.size, max) : initialWindow(max);
}

/** The persisted window, or null when it is missing or corrupt (for the commands that replace it). */
function readReplaceable(store: FileStore): WindowState | null {
  try {
    return store.readWindow();
  } catch (error) {
    if (isLandError(error, 'corrupt')) return null;
    throw error;
  }
}

function record(store: FileStore, before: number, after: number, event: WindowHistoryEntry['event'], train: string | null, by?: string): WindowState {
  const previous = readReplaceable(store);
  const entry: WindowHistoryEntry = { at: nowIso(), event, before, after, train, ...(by === undefined ? {} : { by }) };
  const state: WindowState = { size: after, history: [...(previous?.history ?? []), entry].slice(-HISTORY_KEPT) };
  store.writeWindow(state);
  return state;
}

/** Applies a train's verdict to the window; returns the sizes before and after. */
export function bumpWindow(store: FileStore, event: WindowEvent, max: number, train: string | null): { before: number; after: number } {
  const before = currentWindow(store, max);
  const after = nextWindow(before, event, max);
  record(store, before, after, event, train);
  return { before, after };
}

/**
 * A maintainer's `land window --set`: the size asked, clamped to batch.max when the policy is
 * known (`clamped` says whether it was). `by` is who asked, kept in the history.
 */
export function setWindow(store: FileStore, size: number, max: number | null, by: string): { state: WindowState; clamped: boolean } {
  const persisted = readReplaceable(store);
  const before = max === null ? (persisted?.size ?? size) : clampWindow(persisted?.size ?? initialWindow(max), max);
  const asked = Math.max(1, Math.floor(size));
  const after = max === null ? asked : clampWindow(size, max);
  return { state: record(store, before, after, 'set', null, by), clamped: after !== asked };
}

export function resetWindow(store: FileStore, max: number | null, by: string): WindowState {
  const before = readReplaceable(store)?.size ?? 1;
  const after = max === null ? 1 : initialWindow(max);
  return record(store, before, after, 'reset', null, by);
}
