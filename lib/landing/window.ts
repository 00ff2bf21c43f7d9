// The persisted window (window.json): read clamped to the policy, changed with a history entry.
import { nowIso } from '../queue/index.js';
import type { FileStore, WindowHistoryEntry, WindowState } from '../store/index.js';
import { clampWindow, initialWindow, nextWindow, type WindowEvent } from './windowPlan.js';

const HISTORY_KEPT = 50;

export function currentWindow(store: FileStore, max: number): number {
  const state = store.readWindow();
  return state ? clampWindow(state.size, max) : initialWindow(max);
}

function record(store: FileStore, before: number, after: number, event: WindowHistoryEntry['event'], train: string | null): WindowState {
  const previous = store.readWindow();
  const entry: WindowHistoryEntry = { at: nowIso(), event, before, after, train };
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

export function setWindow(store: FileStore, size: number, max: number | null): WindowState {
  const before = max === null ? (store.readWindow()?.size ?? size) : currentWindow(store, max);
  const after = max === null ? Math.max(1, Math.floor(size)) : clampWindow(size, max);
  return record(store, before, after, 'set', null);
}

export function resetWindow(store: FileStore, max: number | null): WindowState {
  const before = store.readWindow()?.size ?? 1;
  const after = max === null ? 1 : initialWindow(max);
  return record(store, before, after, 'reset', null);
}
