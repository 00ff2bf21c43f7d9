// Which slot the next train gates on. Among the executors that are offered a train (up, or down
// long enough to be tried again) and have a free slot, the one with the most free slots (trains
// spread over hosts), ties in policy order; a train whose last run there was INFRA avoids that
// executor when another can take it. Pure: the pipeline counts the busy slots.
import { type ExecutorHealth, offered } from './health.js';
import type { Executor } from './slots.js';

export type SlotChoice =
  | { kind: 'slot'; executor: Executor }
  /** Every offered executor is full: wait for a train to finish. */
  | { kind: 'busy' }
  /** No executor is offered a train before `until` (every one is down). */
  | { kind: 'all_down'; until: number };

export interface SlotAsk {
  executors: readonly Executor[];
  /** Executor name → trains gating there now. */
  busy: ReadonlyMap<string, number>;
  health: ExecutorHealth;
  now: number;
  /** The executor this train's last run failed on with INFRA, if any. */
  avoid?: string;
}

export function chooseSlot(ask: SlotAsk): SlotChoice {
  const { executors, busy, health, now, avoid } = ask;
  const up = executors.filter((executor) => offered(health, executor.name, now));
  if (up.length === 0) {
    const until = Math.min(...executors.map((executor) => health.get(executor.name)?.until ?? now));
    return { kind: 'all_down', until };
  }
  const free = (executor: Executor) => executor.slots - (busy.get(executor.name) ?? 0);
  const open = up.filter((executor) => free(executor) > 0);
  const elsewhere = open.filter((executor) => executor.name !== avoid);
  const candidates = elsewhere.length > 0 ? elsewhere : open;
  let best: Executor | null = null;
  for (const executor of candidates) if (best === null || free(executor) > free(best)) best = executor;
  return best === null ? { kind: 'busy' } : { kind: 'slot', executor: best };
}
