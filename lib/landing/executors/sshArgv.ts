// The ssh command lines that reach an executor. Only the policy's host and dir go into them, both
// read with a fixed character set (lib/config/executors.ts) and checked again here; nothing from a
// job (ids, branch names, commits) is ever put into a remote shell line: that travels on stdin.
// The ssh program and config come from the drainer's own LAND_SSH and LAND_SSH_CONFIG (as for
// lanes), never from the queue.
import type { Executor } from './slots.js';

export type SshExecutor = Extract<Executor, { kind: 'ssh' }>;

export interface SshSettings {
  /** LAND_SSH, else `ssh` from PATH. */
  program: string;
  /** LAND_SSH_CONFIG: `ssh -F <file>`. */
  config: string | undefined;
  /**
   * The drain's private folder of ssh master sockets (connectionReuse.ts): every ssh to an executor
   * (the pushes too) goes through one master connection per executor. Unset: each ssh connects anew.
   */
  controlDir?: string;
}

export function sshSettings(env: Record<string, string | undefined>): SshSettings {
  return { program: env.LAND_SSH || 'ssh', config: env.LAND_SSH_CONFIG || undefined };
}

/** ssh never prompts, gives up on a host that does not answer in 5 s, and sends none of the drainer's variables. */
const SSH_OPTIONS = ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', '-o', 'SendEnv=-*'];

/** How long a master connection outlives its last session (the drain ends it sooner: closeMasters). */
export const CONTROL_PERSIST_SECONDS = 60;

/**
 * The connection reuse options: a master per executor (its socket `<controlDir>/%C`, one per host,
 * port and user), kept CONTROL_PERSIST_SECONDS after its last session; keepalives end a session
 * whose master lost the host in 30 s (a new ssh would give up after ConnectTimeout).
 */
function reuseOptions(settings: SshSettings): string[] {
  if (settings.controlDir === undefined) return [];
  return [
    ...['-o', 'ControlMaster=auto', '-o', `ControlPath=${safeControlDir(settings.controlDir)}/%C`, '-o', `ControlPersist=${CONTROL_PERSIST_SECONDS}`],
    ...['-o', 'ServerAliveInterval=10', '-o', 'ServerAliveCountMax=3'],
  ];
}

const SAFE_DIR = /^\/[A-Za-z0-9._/-]*$/;

/** The control folder, checked again: ssh reads `%` and spaces in an option's value. */
function safeControlDir(dir: string): string {
  if (!SAFE_DIR.test(dir)) throw new Error(`ssh control folder ${JSON.stringify(dir)} is not a plain absolute path`);
  return dir;
}

/** The executor's dir, checked again before it goes into a remote shell line. */
export function safeDir(executor: SshExecutor): string {
  if (!SAFE_DIR.test(executor.dir) || executor.dir.split('/').includes('..'))
    throw new Error(`executor dir ${JSON.stringify(executor.dir)} is not a plain absolute path`);
  return executor.dir.replace(/(.)\/+$/, '$1');
}

/** The cache repository's path on the executor. */
export function cachePath(executor: SshExecutor): string {
  return `${safeDir(executor)}/cache.git`;
}

/** The argv that runs `remoteCommand` (a fixed line built here) on the executor. */
export function sshArgv(settings: SshSettings, executor: SshExecutor, remoteCommand: string): string[] {
  return [
    settings.program,
    ...SSH_OPTIONS,
    ...reuseOptions(settings),
    ...(settings.config === undefined ? [] : ['-F', settings.config]),
    ...destination(executor),
    remoteCommand,
  ];
}

function destination(executor: SshExecutor): string[] {
  const { user, host, port } = executor.ssh;
  return [...(port === undefined ? [] : ['-p', String(port)]), ...(user === undefined ? [] : ['-l', user]), '--', host.replace(/^\[(.*)\]$/, '$1')];
}

/** The argv that tells the executor's master connection to end (`ssh -O exit`); null without reuse. */
export function exitMasterArgv(settings: SshSettings, executor: SshExecutor): string[] | null {
  if (settings.controlDir === undefined) return null;
  const control = ['-o', `ControlPath=${safeControlDir(settings.controlDir)}/%C`];
  return [
    settings.program,
    '-o',
    'BatchMode=yes',
    ...control,
    ...(settings.config === undefined ? [] : ['-F', settings.config]),
    '-O',
    'exit',
    ...destination(executor),
  ];
}

/** The remote line that creates the cache repository on first use (again: harmless). */
export function prepareCommand(executor: SshExecutor): string {
  const dir = safeDir(executor);
  return `mkdir -p ${dir} && git init -q --bare ${cachePath(executor)}`;
}

const SAFE_LAND = /^[A-Za-z0-9._/][A-Za-z0-9._/-]*( [A-Za-z0-9._/][A-Za-z0-9._/-]*)*$/;

/**
 * The remote line that starts the runner (`land executor run --dir <dir>`): the policy's land
 * command and dir only, checked again here; the request travels on its standard input.
 */
export function runnerCommand(executor: SshExecutor): string {
  return `${landCommand(executor)} executor run --dir ${safeDir(executor)}`;
}

/** The executor's land command (the policy's), checked again before it goes into a remote shell line. */
export function landCommand(executor: SshExecutor): string {
  if (!SAFE_LAND.test(executor.land)) throw new Error(`executor land command ${JSON.stringify(executor.land)} is not plain words`);
  return executor.land;
}

/** The cache repository as git reaches it: ssh://[user@]host[:port]/<dir>/cache.git. */
export function cacheUrl(executor: SshExecutor): string {
  const { user, host, port } = executor.ssh;
  return `ssh://${user === undefined ? '' : `${user}@`}${host}${port === undefined ? '' : `:${port}`}${cachePath(executor)}`;
}

/** One word for a POSIX shell, for the drainer's own settings in GIT_SSH_COMMAND (never a job's data). */
function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** GIT_SSH_COMMAND for the push to an executor: the same program, options, master connection and config as sshArgv. */
export function gitSshCommand(settings: SshSettings): string {
  const config = settings.config === undefined ? [] : ['-F', quote(settings.config)];
  const options = [...SSH_OPTIONS, ...reuseOptions(settings)].map((word) => (/^[A-Za-z0-9=-]+$/.test(word) ? word : quote(word)));
  return [quote(settings.program), ...options, ...config].join(' ');
}
