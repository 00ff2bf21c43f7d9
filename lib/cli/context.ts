import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { LandError } from '../errors.js';
import { resolveTargetName, type LoadedPolicy } from '../config/index.js';
import { commonDir } from '../git/index.js';
import type { QueueStore } from '../store/index.js';
import { openQueue, type OpenedQueue } from './openQueue.js';
import { makeOutput, type Output } from './output.js';

export interface GlobalOptions {
  json?: boolean;
  debug?: boolean;
  cwd?: string;
  target?: string;
  queueRemote?: string;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * What every command needs: where it runs and its output; and, asked for, the target's name and
 * the queue (its store and policy, lib/cli/openQueue.ts), each resolved once for the command.
 */
export class CommandContext {
  readonly cwd: string;
  readonly out: Output;
  private targetPromise: Promise<string> | null = null;
  private queuePromise: Promise<OpenedQueue> | null = null;

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

  /** The queue the command works on: its store, target and policy (docs/remote.md for a queue kept in a remote). */
  queue(): Promise<OpenedQueue> {
    this.queuePromise ??= openQueue(this.cwd, this.options, this.targetName());
    return this.queuePromise;
  }

  /** The queue's store: this clone's own, or the cache of a queue kept in a remote, fetched once. */
  async store(): Promise<QueueStore> {
    return (await this.queue()).store;
  }

  /** The policy at the target's tip (for a remote queue: at the remote's target, as fetched), read once. */
  async policy(): Promise<LoadedPolicy> {
    return (await this.queue()).policy();
  }

  /** The target's name, resolved once for the command. */
  targetName(): Promise<string> {
    this.targetPromise ??= resolveTargetName(this.cwd, this.options.target);
    return this.targetPromise;
  }
}
