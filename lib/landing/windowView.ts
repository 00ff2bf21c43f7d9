// The window as `land status` and `land window` show it. An unreadable policy does not hide the
// queue, but it does make the window unknown: the size depends on batch.max, so it is reported as
// unknown with the reason rather than guessed.
import type { LoadedPolicy, Policy } from '../config/index.js';
import type { QueueStore, WindowHistoryEntry } from '../store/index.js';
import { isLandError } from '../errors.js';
import { initialWindow, clampWindow } from './plan/windowPlan.js';

export interface WindowView {
  /** The size the next train may take; null when the policy cannot be read. */
  size: number | null;
  /** batch.max of the policy in force; null when the policy cannot be read. */
  max: number | null;
  /** Why the size is unknown (one line), or null when it is known. */
  reason: string | null;
  persisted: number | null;
  history: WindowHistoryEntry[];
}

export type PolicyMax = { kind: 'known'; max: number; policy: Policy } | { kind: 'unknown'; reason: string };

/** The policy in force, as the command has it (lib/cli/openQueue.ts): read once, asked again. */
export type PolicyOfCommand = () => Promise<LoadedPolicy>;

/** batch.max of the policy in force, or why the policy cannot be read. */
export async function policyBatchMax(loadPolicy: PolicyOfCommand): Promise<PolicyMax> {
  try {
    const { policy } = await loadPolicy();
    return { kind: 'known', max: policy.batch.max, policy };
  } catch (error) {
    // An unreadable policy must not hide the queue; a bad --target is still the user's error.
    if (!isLandError(error) || error.code === 'usage') throw error;
    const [first, ...more] = error.details;
    const detail = first === undefined ? '' : `: ${first}${more.length ? ` (and ${more.length} more)` : ''}`;
    return { kind: 'unknown', reason: `the policy cannot be read: ${error.message}${detail}` };
  }
}

/** batch.max, or null when the policy cannot be read (for the commands that change the window). */
export function knownMax(policy: PolicyMax): number | null {
  return policy.kind === 'known' ? policy.max : null;
}

export async function readWindowView(store: QueueStore, loadPolicy: PolicyOfCommand): Promise<WindowView> {
  return (await readWindowAndPolicy(store, loadPolicy)).view;
}

/** The window view and the policy it was read from (null when it cannot be read), with one policy read. */
export async function readWindowAndPolicy(store: QueueStore, loadPolicy: PolicyOfCommand): Promise<{ view: WindowView; policy: Policy | null }> {
  const policy = await policyBatchMax(loadPolicy);
  const state = store.readWindow();
  const persisted = state?.size ?? null;
  const history = state?.history ?? [];
  if (policy.kind === 'unknown') return { view: { size: null, max: null, reason: policy.reason, persisted, history }, policy: null };
  const size = persisted === null ? initialWindow(policy.max) : clampWindow(persisted, policy.max);
  return { view: { size, max: policy.max, reason: null, persisted, history }, policy: policy.policy };
}

/** "window 4 (max 8)", or "window unknown (the policy cannot be read: ...)". */
export function windowSummary(view: WindowView): string {
  if (view.size === null) return `window unknown (${view.reason ?? 'the policy cannot be read'})`;
  return `window ${view.size}${view.max === null ? '' : ` (max ${view.max})`}`;
}
