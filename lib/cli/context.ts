import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { LandError } from '../errors.js';
import { loadPolicy, resolveTargetName, type LoadedPolicy } from '../config/index.js';
import { commonDir } from '../git/index.js';
import { openQueueStore, type QueueStore } from '../store/index.js';
import { resolveQueueMode } from '../config/queueMode.js';
import { makeOutput, type Output } from './output.js';

export interface GlobalOptions {
  json?: boolean;
  debug?: boolean;
  cwd?: string;
  target?: string;
  queueRemote?: string;
}

/** What every command needs: where it runs, its output, the store and the policy (lazily). */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export class CommandContext {
  readonly cwd: string;
  readonly out: Output;
  private storePromise: Promise<QueueStore> | null = null;

  /**
   * The context of a command. Every command but `land batch` (which also runs outside a
   * repository) needs one: outside it, the command stops here with "not inside a git repository".
   */
  static async open(options: GlobalOptions, where: { outsideRepository?: boolean } = {}): Promise<CommandContext> {
    const ctx = new CommandContext(options);
    if (where.outsideRepository) return ctx;
    // Most commands read the target's name next (status, submit, run, window, config...): its git
    // call runs beside the repository's, not after it. Its answer (or refusal) is kept for when
    // the command asks; a command that never asks paid one git process run in parallel.
    ctx.targetName().catch(() => undefined);
    await commonDir(ctx.cwd);
    return ctx;
  }

  constructor(readonly options: GlobalOptions) {
    this.cwd = resolve(options.cwd ?? process.cwd());
    if (!isDirectory(this.cwd)) throw new LandError('usage', `-C: no such directory: ${this.cwd}`);
    this.out = makeOutput(Boolean(options.json));
  }

  /** The queue's store: this clone's own, or the cache of a queue kept in a remote, fetched once (docs/remote.md). */
  store(): Promise<QueueStore> {
    this.storePromise ??= this.openQueue();
    return this.storePromise;
  }

  private async openQueue(): Promise<QueueStore> {
    await commonDir(this.cwd); // outside a repository: that error, before any other git is asked
    const target = await this.targetName().catch((error: unknown) => {
      if (this.options.queueRemote) throw error;
      return null; // a command that needs the target reports it; the clone's own queue needs none
    });
    return openQueueStore(this.cwd, target ? await resolveQueueMode(this.cwd, target, this.options.queueRemote) : null);
  }

  /** The policy at the target's tip (for a remote queue: at the remote's target, as fetched). */
  async policy(): Promise<LoadedPolicy> {
    const store = await this.store();
    return loadPolicy(this.cwd, this.options.target, (target) => store.targetRef(target));
  }

  targetName(): Promise<string> {
    return resolveTargetName(this.cwd, this.options.target);
  }
}
