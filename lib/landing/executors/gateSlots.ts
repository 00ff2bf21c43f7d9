// The drain's gate slots across its executors: which slot of which executor each running train
// holds, which executors are down (health.ts), and each ssh executor's cache repository made once
// per drain, through one ssh master connection each (connectionReuse.ts, closed by close() at the
// drain's end). A train takes a slot (chooseSlot: waiting while every offered one is busy, or every
// executor is down), runs its gates there, and gives it back.
import { chooseSlot } from './choose.js';
import { closeMasters, controlDirStill, openControlDir } from './connectionReuse.js';
import { ALL_UP, type ExecutorHealth, markDown, markUp } from './health.js';
import { type ExecutorInfra, prepareExecutor } from './ship.js';
import type { Executor } from './slots.js';
import type { SshExecutor, SshSettings } from './sshArgv.js';

export interface TakenSlot {
  executor: Executor;
  /** The slot's number on its executor (0-based): an ssh executor's checkout is slots/<n>. */
  slot: number;
}

export class GateSlots {
  private health: ExecutorHealth = ALL_UP;
  private readonly used = new Map<string, Set<number>>();
  private readonly prepared = new Map<string, Promise<ExecutorInfra | null>>();
  private waiters: (() => void)[] = [];
  /** The master sockets' folder: made on the first ssh executor's use (null: no reuse). */
  private controlDir: string | null | undefined;
  private readonly reached = new Map<string, SshExecutor>();

  constructor(
    private readonly ssh: SshSettings,
    private readonly now: () => number = Date.now,
    /** Told each time an executor goes down or comes back (the drain writes executors.json for `land status`). */
    private readonly onHealth: (health: ExecutorHealth) => void = () => undefined,
  ) {}

  /** A free slot of an offered executor (avoiding `avoid` when another can take it); null once `signal` aborts. */
  async take(executors: readonly Executor[], avoid: string | undefined, signal: AbortSignal): Promise<TakenSlot | null> {
    while (!signal.aborted) {
      const busy = new Map([...this.used].map(([name, slots]) => [name, slots.size]));
      const choice = chooseSlot({ executors, busy, health: this.health, now: this.now(), avoid });
      if (choice.kind === 'slot') return this.hold(choice.executor);
      await this.changeOrTime(choice.kind === 'all_down' ? Math.max(0, choice.until - this.now()) : null, signal);
    }
    return null;
  }

  give(taken: TakenSlot): void {
    this.used.get(taken.executor.name)?.delete(taken.slot);
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** The executor failed (unreachable, connection lost): not offered a train for a while. */
  down(name: string, reason: string): void {
    this.health = markDown(this.health, name, this.now(), reason);
    this.prepared.delete(name);
    this.onHealth(this.health);
  }

  /** A run reached it. */
  up(name: string): void {
    const before = this.health;
    this.health = markUp(this.health, name);
    if (this.health !== before) this.onHealth(this.health);
  }

  /** The ssh settings of every call to an executor: the drainer's, through the drain's masters. */
  get settings(): SshSettings {
    if (this.controlDir) this.controlDir = controlDirStill(this.controlDir);
    return this.controlDir ? { ...this.ssh, controlDir: this.controlDir } : this.ssh;
  }

  /** Its cache repository, made on first use (once per drain unless it failed). */
  prepare(executor: SshExecutor): Promise<ExecutorInfra | null> {
    if (this.controlDir === undefined) this.controlDir = openControlDir();
    this.reached.set(executor.name, executor);
    let made = this.prepared.get(executor.name);
    if (made === undefined) {
      made = prepareExecutor(this.settings, executor);
      this.prepared.set(executor.name, made);
    }
    return made;
  }

  /** The drain ended: the executors' master connections end, their sockets' folder goes. */
  async close(): Promise<void> {
    const settings = this.settings;
    this.controlDir = undefined;
    await closeMasters(settings, [...this.reached.values()]);
    this.reached.clear();
  }

  private hold(executor: Executor): TakenSlot {
    const slots = this.used.get(executor.name) ?? new Set<number>();
    this.used.set(executor.name, slots);
    let slot = 0;
    while (slots.has(slot)) slot += 1;
    slots.add(slot);
    return { executor, slot };
  }

  /** Until a slot is given back, `ms` pass (null: no timer), or `signal` aborts. */
  private changeOrTime(ms: number | null, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === null ? undefined : setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      this.waiters.push(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
