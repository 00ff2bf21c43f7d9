import { loadPolicy } from '../config/index.js';
import type { FileStore, WindowHistoryEntry } from '../store/index.js';
import { isLandError } from '../errors.js';
import { initialWindow, clampWindow } from './windowPlan.js';

export interface WindowView {
  size: number;
  /** batch.max of the policy in force; null when the policy cannot be read. */
  max: number | null;
  persisted: number | null;
  history: WindowHistoryEntry[];
}

/** The window as `land status` and `land window` show it. A bad policy does not hide the queue. */
/** batch.max of the policy in force, or null when the policy cannot be read. */
export async function policyBatchMax(cwd: string, target?: string): Promise<number | null> {
  try {
    return (await loadPolicy(cwd, target)).policy.batch.max;
  } catch (error) {
    // An unreadable policy must not hide the queue; a bad --target is still the user's error.
    if (!isLandError(error) || error.code === 'usage') throw error;
    return null;
  }
}

export async function readWindowView(store: FileStore, cwd: string, target?: string): Promise<WindowView> {
  const max = await policyBatchMax(cwd, target);
  const state = store.readWindow();
  const persisted = state?.size ?? null;
  const size = max === null ? (persisted ?? 1) : persisted === null ? initialWindow(max) : clampWindow(persisted, max);
  return { size, max, persisted, history: state?.history ?? [] };
}
