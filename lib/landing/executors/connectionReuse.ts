// One ssh connection per executor per drain: the drain's ssh calls to an executor (the cache
// repository's set-up, every push, every run) go through one OpenSSH master connection, instead of
// a key exchange and login each (docs/executors.md#connection-reuse). Its socket lives in a folder
// of the drainer's own, made here in /tmp (mode 0700, like ssh-agent's): a gate never sees the
// drainer's /tmp (its sandbox has a private one), so it cannot reach a master through it. At the
// drain's end each master is told to exit and the folder goes.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { startProcess } from '../../proc/runProcess.js';
import { exitMasterArgv, type SshExecutor, type SshSettings } from './sshArgv.js';

/**
 * Where the sockets go: /tmp itself, not TMPDIR, which may be a folder a gate's sandbox shows
 * (docs/sandbox.md). Short on purpose: a socket's path (this, `/`, ssh's 40-character %C and the
 * 17 characters of its temporary name) must fit the 108 bytes of a Unix socket address.
 */
const SOCKET_ROOT = '/tmp/land-ssh-';
const MAX_DIR_LENGTH = 48;

/** A new private folder for the drain's master sockets, or null (then every ssh connects anew). */
export function openControlDir(): string | null {
  try {
    const dir = mkdtempSync(SOCKET_ROOT); // mode 0700: only the drainer's user can reach its sockets
    if (dir.length <= MAX_DIR_LENGTH && /^\/[A-Za-z0-9._/-]+$/.test(dir)) return dir;
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // no /tmp to write to: no reuse, nothing else changes
  }
  return null;
}

/**
 * The drain's folder while it is there, else a new one (or null): a long `land run --watch` whose
 * folder was removed (a /tmp cleaner, an admin clearing leftovers) would otherwise fail every ssh
 * ("cannot bind") and mark every executor down.
 */
export function controlDirStill(dir: string): string | null {
  return existsSync(dir) ? dir : openControlDir();
}

/**
 * Ends the masters of `executors` (`ssh -O exit`, at most 5 s each; an ssh program that has no
 * masters, like the tests' stand-in, just fails it) and removes the folder. A master left behind
 * (the drainer killed) exits by itself CONTROL_PERSIST_SECONDS after its last session.
 */
export async function closeMasters(settings: SshSettings, executors: readonly SshExecutor[]): Promise<void> {
  const dir = settings.controlDir;
  if (dir === undefined) return;
  if (hasSockets(dir)) {
    const exits = executors.flatMap((executor) => {
      const argv = exitMasterArgv(settings, executor);
      return argv === null ? [] : [startProcess({ argv, timeoutMs: 5_000 }).ended];
    });
    await Promise.all(exits);
  }
  rmSync(dir, { recursive: true, force: true });
}

function hasSockets(dir: string): boolean {
  try {
    return readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}
