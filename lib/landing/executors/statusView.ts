// What `land status` says of the policy's executors (docs/executors.md): each with its slots and
// whether this clone's drain last found it down (executors.json). Pure.
import type { ExecutorHealthFile } from '../../store/index.js';
import type { Executor } from './slots.js';

export interface ExecutorStatus {
  name: string;
  slots: number;
  /** `unknown`: no drain in this clone has used it yet (`land doctor` checks it now). */
  health: 'up' | 'down' | 'unknown';
  reason: string | null;
  /** When it was found down (ISO), and when it is offered a train again (ISO). */
  since: string | null;
  until: string | null;
}

export function executorStatuses(executors: readonly Executor[], file: ExecutorHealthFile | null): ExecutorStatus[] {
  return executors.map((executor) => {
    const base = { name: executor.name, slots: executor.slots, reason: null, since: null, until: null };
    if (executor.kind === 'local') return { ...base, health: 'up' };
    if (file === null) return { ...base, health: 'unknown' };
    const down = file.down.find((mark) => mark.name === executor.name);
    if (!down) return { ...base, health: 'up' };
    return { ...base, health: 'down', reason: down.reason, since: new Date(down.since).toISOString(), until: new Date(down.until).toISOString() };
  });
}

/** One line an executor: `ssh://ci@build2 (2 slots): down since 04:31:02Z (connection refused); tried again in 25 s`. */
export function executorLine(status: ExecutorStatus, now: number): string {
  const where = `${status.name === 'local' ? 'the drainer' : status.name} (${status.slots} slot${status.slots === 1 ? '' : 's'})`;
  if (status.health === 'up') return `${where}: up`;
  if (status.health === 'unknown') return `${where}: not used by a drain here yet (land doctor checks it)`;
  const until = Date.parse(status.until ?? '');
  const again = until > now ? `tried again in ${Math.ceil((until - now) / 1000)} s` : 'tried again at the next train';
  return `${where}: down since ${(status.since ?? '').slice(11, 19)}Z (${status.reason}); ${again}`;
}
