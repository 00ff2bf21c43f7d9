import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { LandError } from '../errors.js';
import { loadPolicy, resolveTargetName, type LoadedPolicy } from '../config/index.js';
import { commonDir } from '../git/index.js';
import { openStore, type FileStore } from '../store/index.js';
import { makeOutput, type Output } from './output.js';

export interface GlobalOptions {
  json?: boolean;
  debug?: boolean;
  cwd?: string;
  target?: string;
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
  private storePromise: Promise<FileStore> | null = null;

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

  store(): Promise<FileStore> {
    this.storePromise ??= openStore(this.cwd);
    return this.storePromise;
  }

  policy(): Promise<LoadedPolicy> {
    return loadPolicy(this.cwd, this.options.target);
  }

  targetName(): Promise<string> {
    return resolveTargetName(this.cwd, this.options.target);
  }
}
