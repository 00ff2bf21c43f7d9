// A throwaway sshd on 127.0.0.1: its own host key, one client key, and an ssh config file naming it
// (handed to land through LAND_SSH_CONFIG). The benchmark's executor row starts two of these as two
// hosts; the lane, remote-queue and executor tests start one (test/helpers/sshd.ts). Stopped by
// its pid afterwards. The tests' sshd also keeps a master connection for the tests' own ssh and git
// (`master: true`); the benchmark's does not, so it measures the connections land makes itself.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';

// LAND_TEST_SSHD: another sshd binary (an absolute path), for a machine where it is not installed.
export const SSHD = process.env.LAND_TEST_SSHD || '/usr/sbin/sshd';

export function sshdInstalled(): boolean {
  return existsSync(SSHD);
}

export interface TestSshd {
  /** The Host name `config` defines for it. */
  host: string;
  config: string;
  /** The config's text (the Host block), to put several sshds in one file. */
  configText: string;
  /** Where it listens (127.0.0.1), and the login it accepts with `clientKey`. */
  port: number;
  user: string;
  clientKey: string;
  /** The master connection's socket (`%C`: one per host, port and user); only used with `master`. */
  controlPath: string;
  stop(): void;
}

export interface SshdOptions {
  /** The Host name in the ssh config (default `testlane`). */
  alias?: string;
  /** Keep a master connection that every ssh through `config` reuses (the tests' speed-up). */
  master?: boolean;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function writeSshdConfig(dir: string): string {
  const sshdConfig = join(dir, 'sshd_config');
  writeFileSync(
    sshdConfig,
    [
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'StrictModes no',
      'PermitRootLogin yes',
      'UsePAM no',
      // Many clones pushing at once (the remote-queue tests): no refused or dropped connections.
      'MaxStartups 200',
      'MaxSessions 200',
      '',
    ].join('\n'),
  );
  return sshdConfig;
}

function clientConfig(dir: string, alias: string, port: number, user: string, master: boolean): string {
  return [
    `Host ${alias}`,
    '  HostName 127.0.0.1',
    `  Port ${port}`,
    `  User ${user}`,
    `  IdentityFile ${join(dir, 'client_key')}`,
    '  IdentitiesOnly yes',
    '  UserKnownHostsFile /dev/null',
    '  StrictHostKeyChecking no',
    '  LogLevel ERROR',
    // Every ssh (the wrapper's probe, run and copy-back) reuses the master connection startSshd
    // keeps, which keeps the tests quick on a slow machine.
    ...(master ? ['  ControlMaster auto', `  ControlPath ${join(dir, 'cm-%C')}`] : []),
    '',
  ].join('\n');
}

/** Resolves once `check` succeeds; throws `failure` after `ms` or when `gone()` says the process ended. */
async function until(check: () => void, ms: number, gone: () => string | null, failure: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const ended = gone();
    if (ended !== null) throw new Error(ended);
    try {
      check();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(failure());
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export async function startSshd(dir: string, opts: SshdOptions = {}): Promise<TestSshd> {
  if (!sshdInstalled()) {
    throw new Error(`${SSHD} is not installed; the real-sshd tests and the executor benchmark need it (apt-get install openssh-server, as .ci/run does)`);
  }
  const alias = opts.alias ?? 'testlane';
  const user = userInfo().username;
  // sshd refuses to start as root without its privilege separation directory.
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const keygen = (file: string) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file], { stdio: 'ignore' });
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'client_key'));
  copyFileSync(join(dir, 'client_key.pub'), join(dir, 'authorized_keys'));
  const port = await freePort();
  const sshdConfig = writeSshdConfig(dir);
  const config = join(dir, 'ssh_config');
  const configText = clientConfig(dir, alias, port, user, opts.master === true);
  writeFileSync(config, configText);
  const child: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', sshdConfig, '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  let master: ChildProcess | null = null;
  const stop = () => {
    for (const proc of [master, child]) if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
  };
  try {
    // Ready when a real login works. Generous limits: a login takes seconds on a loaded machine.
    const login = () => execFileSync('ssh', ['-F', config, '-o', 'BatchMode=yes', alias, 'true'], { stdio: 'ignore', timeout: 20_000 });
    const sshdGone = () => (child.exitCode === null ? null : `sshd exited ${child.exitCode}: ${log}`);
    await until(login, 60_000, sshdGone, () => `sshd on 127.0.0.1:${port} did not accept a login: ${log}`);
    if (opts.master) {
      // The master runs in the foreground as this process's child (no ControlPersist daemon to leave behind).
      const started = spawn('ssh', ['-F', config, '-M', '-N', '-o', 'BatchMode=yes', alias], { stdio: 'ignore' });
      master = started;
      const check = () => execFileSync('ssh', ['-F', config, '-O', 'check', alias], { stdio: 'ignore', timeout: 20_000 });
      const masterGone = () => (started.exitCode === null ? null : 'the ssh master connection to the test sshd exited');
      await until(check, 90_000, masterGone, () => 'the ssh master connection to the test sshd did not start');
    }
  } catch (error) {
    stop();
    throw error;
  }
  return { host: alias, config, configText, port, user, clientKey: join(dir, 'client_key'), controlPath: join(dir, 'cm-%C'), stop };
}
