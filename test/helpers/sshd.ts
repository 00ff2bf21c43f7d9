// A throwaway sshd on 127.0.0.1 for the lane tests and the remote-queue tests: its own host key, one
// client key, and an ssh config file naming it (handed to land through LAND_SSH_CONFIG). Git reaches
// it through ssh://<user>@127.0.0.1:<port>/<path> with gitSshCommand(). Stopped by its pid afterwards.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';

// LAND_TEST_SSHD: another sshd binary (an absolute path), for a machine where it is not installed.
export const SSHD = process.env.LAND_TEST_SSHD || '/usr/sbin/sshd';

/** Set by .ci/run: a missing sshd fails the real-sshd lane tests instead of leaving them out. */
export const SSHD_REQUIRED = process.env.LAND_REQUIRE_SSHD === '1';

export function sshdInstalled(): boolean {
  return existsSync(SSHD);
}

export interface TestSshd {
  /** The name to use as a lane; defined in `config`. */
  host: string;
  config: string;
  /** Where it listens (127.0.0.1), and the login it accepts with `clientKey`. */
  port: number;
  user: string;
  clientKey: string;
  /** The master connection's socket (`%C`: one per host, port and user). */
  controlPath: string;
  stop(): void;
}

/**
 * The ssh command git runs to reach `sshd` at ssh://<user>@127.0.0.1:<port>/... (core.sshCommand or
 * GIT_SSH_COMMAND): the client key only, no user ssh config, no host-key or password prompt. Each
 * git command is its own session through the master connection startSshd keeps (its ControlPath's
 * %C is the same for 127.0.0.1, the port and the user), which saves a key exchange per fetch or
 * push on a slow machine; without the master, ssh connects on its own.
 */
export function gitSshCommand(sshd: Pick<TestSshd, 'port' | 'clientKey' | 'controlPath'>): string {
  return [
    'ssh',
    '-F /dev/null',
    `-i ${sshd.clientKey}`,
    `-p ${sshd.port}`,
    '-o IdentitiesOnly=yes',
    '-o StrictHostKeyChecking=no',
    '-o UserKnownHostsFile=/dev/null',
    '-o BatchMode=yes',
    '-o LogLevel=ERROR',
    '-o ControlMaster=no',
    `-o ControlPath=${sshd.controlPath}`,
  ].join(' ');
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

export async function startSshd(dir: string): Promise<TestSshd> {
  if (!sshdInstalled()) {
    throw new Error(`${SSHD} is not installed; the real-sshd tests (lanes, ssh:// remotes) need it (apt-get install openssh-server, as .ci/run does)`);
  }
  const user = userInfo().username;
  // sshd refuses to start as root without its privilege separation directory.
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const keygen = (file: string) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file], { stdio: 'ignore' });
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'client_key'));
  copyFileSync(join(dir, 'client_key.pub'), join(dir, 'authorized_keys'));
  const port = await freePort();
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
  const config = join(dir, 'ssh_config');
  writeFileSync(
    config,
    [
      'Host testlane',
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${user}`,
      `  IdentityFile ${join(dir, 'client_key')}`,
      '  IdentitiesOnly yes',
      '  UserKnownHostsFile /dev/null',
      '  StrictHostKeyChecking no',
      '  LogLevel ERROR',
      // Every ssh (the wrapper's probe, run and copy-back) reuses the master connection this file
      // starts, which keeps the tests quick on a slow machine.
      '  ControlMaster auto',
      `  ControlPath ${join(dir, 'cm-%C')}`, // gitSshCommand names the same path
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', sshdConfig, '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  let master: ChildProcess | null = null;
  const stop = () => {
    for (const proc of [master, child]) if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
  };
  // Ready when a real login works. Generous limits: a login takes seconds on a loaded machine.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sshd exited ${child.exitCode}: ${log}`);
    try {
      execFileSync('ssh', ['-F', config, '-o', 'BatchMode=yes', 'testlane', 'true'], { stdio: 'ignore', timeout: 20_000 });
      break;
    } catch {
      if (Date.now() > deadline) {
        stop();
        throw new Error(`sshd on 127.0.0.1:${port} did not accept a login: ${log}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  // The master runs in the foreground as this process's child (no ControlPersist daemon to leave behind).
  master = spawn('ssh', ['-F', config, '-M', '-N', '-o', 'BatchMode=yes', 'testlane'], { stdio: 'ignore' });
  for (;;) {
    try {
      execFileSync('ssh', ['-F', config, '-O', 'check', 'testlane'], { stdio: 'ignore', timeout: 20_000 });
      break;
    } catch {
      if (master.exitCode !== null || Date.now() > deadline + 30_000) {
        stop();
        throw new Error('the ssh master connection to the test sshd did not start');
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { host: 'testlane', config, port, user, clientKey: join(dir, 'client_key'), controlPath: join(dir, 'cm-%C'), stop };
}
