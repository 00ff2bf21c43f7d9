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
}

export function sshSettings(env: Record<string, string | undefined>): SshSettings {
  return { program: env.LAND_SSH || 'ssh', config: env.LAND_SSH_CONFIG || undefined };
}

/** ssh never prompts, gives up on a host that does not answer in 5 s, and sends none of the drainer's variables. */
const SSH_OPTIONS = ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', '-o', 'SendEnv=-*'];

const SAFE_DIR = /^\/[A-Za-z0-9._/-]*$/;

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
  const { user, host, port } = executor.ssh;
  return [
    settings.program,
    ...SSH_OPTIONS,
    ...(settings.config === undefined ? [] : ['-F', settings.config]),
    ...(port === undefined ? [] : ['-p', String(port)]),
    ...(user === undefined ? [] : ['-l', user]),
    '--',
    host.replace(/^\[(.*)\]$/, '$1'),
    remoteCommand,
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

/** GIT_SSH_COMMAND for the push to an executor: the same program, options and config as sshArgv. */
export function gitSshCommand(settings: SshSettings): string {
  const config = settings.config === undefined ? [] : ['-F', quote(settings.config)];
  return [quote(settings.program), ...SSH_OPTIONS.map((word) => (word.includes('*') ? quote(word) : word)), ...config].join(' ');
}
