// The window as `land status` and `land window` show it. An unreadable policy does not hide the
// queue, but it does make the window unknown: the size depends on batch.max, so it is reported as
// unknown with the reason rather than guessed.
import { unreadablePolicyReason, type LoadedPolicy, type Policy } from '../config/index.js';
import { metricsRowField, type QueueStore, type WindowHistoryEntry } from '../store/index.js';
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
  /**
   * Where the persisted size comes from: this clone's window.json, or, in a clone of a queue kept
   * in a remote that drains nothing itself, the window after the last train a drainer published
   * (shown, never used: the drainer keeps its own).
   */
  from: 'here' | 'drainer';
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
    // An unreadable policy must not hide the queue.
    return { kind: 'unknown', reason: unreadablePolicyReason(error) };
  }
}

/** batch.max, or null when the policy cannot be read (for the commands that change the window). */
export function knownMax(policy: PolicyMax): number | null {
  return policy.kind === 'known' ? policy.max : null;
}

export async function readWindowView(store: QueueStore, loadPolicy: PolicyOfCommand): Promise<WindowView> {
  return (await readWindowAndPolicy(store, loadPolicy)).view;
}

/**
 * The window view and the policy it was read from (null when it cannot be read), with one policy
 * read. `tail`: the metrics rows the caller already read from the end (ended by `hasWindowRow`
 * among its own tests), so a command that needs them too reads the tail once.
 */
export async function readWindowAndPolicy(
  store: QueueStore,
  loadPolicy: PolicyOfCommand,
  tail?: readonly Record<string, unknown>[],
): Promise<{ view: WindowView; policy: Policy | null }> {
  const policy = await policyBatchMax(loadPolicy);
  const state = store.readWindow();
  const drainers = state === null && store.rowsPerDrainer ? drainersWindow(tail ?? store.readMetricsTail(hasWindowRow)) : null;
  const persisted = state?.size ?? drainers;
  const history = state?.history ?? [];
  const from = drainers === null ? 'here' : 'drainer';
  if (policy.kind === 'unknown') return { view: { size: null, max: null, reason: policy.reason, persisted, history, from }, policy: null };
  const size = persisted === null ? initialWindow(policy.max) : clampWindow(persisted, policy.max);
  return { view: { size, max: policy.max, reason: null, persisted, history, from }, policy: policy.policy };
}

const windowOf = (row: Record<string, unknown>) => metricsRowField(row, 'windowAfter');

/** Whether rows read from the end of the metrics hold the window after a train: enough for the drainer's window. */
export function hasWindowRow(rows: readonly Record<string, unknown>[]): boolean {
  return rows.some((row) => typeof windowOf(row) === 'number');
}

/** The window after the latest train any drainer of a remote queue published (in `rows`, the metrics' tail); null when none did. */
function drainersWindow(rows: readonly Record<string, unknown>[]): number | null {
  const after = rows
    .map(windowOf)
    .filter((value) => typeof value === 'number')
    .at(-1);
  return after !== undefined && Number.isInteger(after) && after > 0 ? after : null;
}

/** "window 4 (max 8)", or "window unknown (the policy cannot be read: ...)". */
export function windowSummary(view: WindowView): string {
  if (view.size === null) return `window unknown (${view.reason ?? 'the policy cannot be read'})`;
  const whose = view.from === 'drainer' ? "; the drainer's, after its last train" : '';
  return `window ${view.size}${view.max === null ? '' : ` (max ${view.max}${whose})`}`;
}
