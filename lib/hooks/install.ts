// `land hooks install|uninstall`: writes (or removes) land's hooks in the folder git runs hooks
// from (`git rev-parse --git-path hooks`, which honours core.hooksPath). A hook land did not write
// (no marker line) is never overwritten without --force and never removed. Where the protecting
// hook went, and what it holds, is recorded in the state folder (hooks.json), so that `land run`
// checks before each landing that git still runs it (lib/hooks/guard.ts); uninstall forgets it.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LandError } from '../errors.js';
import { hooksDir } from '../git/index.js';
import type { QueueStore } from '../store/index.js';
import { PROTECT_HOOK, sha256Of } from './guard.js';
import { isLandHook, prePushScript, referenceTransactionScript } from './scripts.js';

export type HookName = 'reference-transaction' | 'pre-push';

export interface InstalledHook {
  hook: HookName;
  path: string;
  /** `replaced`: an earlier land hook (or, with --force, someone else's) was overwritten. */
  action: 'created' | 'replaced';
}

export interface InstallResult {
  hooksDir: string;
  target: string;
  tokenFile: string;
  installed: InstalledHook[];
}

/** The hooks folder, created when missing; an error when it is not a folder (core.hooksPath=/dev/null). */
async function usableHooksDir(cwd: string): Promise<string> {
  const dir = await hooksDir(cwd);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  if (!statSync(dir).isDirectory()) {
    throw new LandError('state', `git's hooks folder ${dir} is not a folder`, { hint: 'check core.hooksPath (`git config --get core.hooksPath`)' });
  }
  return dir;
}

function readIfExists(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Decides every write before making any, so a refusal leaves the hooks folder unchanged. */
function planWrite(dir: string, hook: HookName, force: boolean): { path: string; action: InstalledHook['action'] } {
  const path = join(dir, hook);
  const existing = readIfExists(path);
  if (existing === null) return { path, action: 'created' };
  if (!isLandHook(existing) && !force) {
    throw new LandError('state', `${path} exists and was not written by land; not overwriting it`, {
      hint: 'merge it by hand, or run `land hooks install --force` to replace it',
    });
  }
  return { path, action: 'replaced' };
}

function writeExecutable(path: string, text: string): void {
  const temp = `${path}.land-tmp-${process.pid}`;
  writeFileSync(temp, text, { mode: 0o755 });
  chmodSync(temp, 0o755);
  renameSync(temp, path);
}

export async function installHooks(opts: {
  cwd: string;
  /** The queue's store: its token file goes into the hook, and the install is recorded there. */
  store: QueueStore;
  target: string;
  prePush: boolean;
  force: boolean;
  /** For the pre-push hook: the node binary and dist/bin/land.js, embedded as absolute paths. */
  node: string;
  landEntry: string;
}): Promise<InstallResult> {
  const dir = await usableHooksDir(opts.cwd);
  const tokenFile = opts.store.tokenFile();
  const protect = referenceTransactionScript({ target: opts.target, tokenFile });
  const writes: { hook: HookName; text: string }[] = [{ hook: PROTECT_HOOK, text: protect }];
  if (opts.prePush) writes.push({ hook: 'pre-push', text: prePushScript({ node: opts.node, landEntry: opts.landEntry, tokenFile }) });
  const planned = writes.map((write) => ({ ...write, ...planWrite(dir, write.hook, opts.force) }));
  for (const write of planned) writeExecutable(write.path, write.text);
  opts.store.writeProtectHook({ dir, hook: PROTECT_HOOK, sha256: sha256Of(protect), target: opts.target, installedAt: new Date().toISOString() });
  return {
    hooksDir: dir,
    target: opts.target,
    tokenFile,
    installed: planned.map(({ hook, path, action }) => ({ hook, path, action })),
  };
}

export interface UninstallResult {
  hooksDir: string;
  removed: string[];
  /** Hooks with land's names that land did not write: left alone. */
  kept: string[];
}

export async function uninstallHooks(opts: { cwd: string; store: QueueStore }): Promise<UninstallResult> {
  const dir = await hooksDir(opts.cwd);
  // Whatever is left in the folder, land's hook is no longer installed: `land run` stops checking it.
  opts.store.clearProtectHook();
  const result: UninstallResult = { hooksDir: dir, removed: [], kept: [] };
  for (const hook of ['reference-transaction', 'pre-push'] as const) {
    const path = join(dir, hook);
    const text = existsSync(dir) && statSync(dir).isDirectory() ? readIfExists(path) : null;
    if (text === null) continue;
    if (isLandHook(text)) {
      rmSync(path, { force: true });
      result.removed.push(path);
    } else {
      result.kept.push(path);
    }
  }
  return result;
}
