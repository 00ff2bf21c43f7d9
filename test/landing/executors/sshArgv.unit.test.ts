// The ssh command lines to an executor: built from the policy's checked host and dir only.
import { describe, expect, it } from 'vitest';
import {
  cacheUrl,
  exitMasterArgv,
  gitSshCommand,
  prepareCommand,
  runnerCommand,
  type SshExecutor,
  sshArgv,
  sshSettings,
} from '../../../lib/landing/executors/sshArgv.js';
import { slotRef } from '../../../lib/landing/executors/ship.js';

const b1: SshExecutor = { kind: 'ssh', name: 'ssh://ci@b1:2222', slots: 2, ssh: { user: 'ci', host: 'b1', port: 2222 }, dir: '/var/tmp/land/', land: 'land' };
const v6: SshExecutor = {
  kind: 'ssh',
  name: 'ssh://[::1]',
  slots: 1,
  ssh: { user: undefined, host: '[::1]', port: undefined },
  dir: '/srv/land',
  land: '/usr/bin/node /opt/land/dist/bin/land.js',
};

describe('ssh to an executor', () => {
  it('runs ssh without prompts, with the drainer’s LAND_SSH and LAND_SSH_CONFIG, and none of its variables', () => {
    const settings = sshSettings({ LAND_SSH: '/opt/ssh', LAND_SSH_CONFIG: '/etc/land/ssh config' });
    expect(sshArgv(settings, b1, 'true')).toEqual([
      '/opt/ssh',
      ...['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', '-o', 'SendEnv=-*'],
      ...['-F', '/etc/land/ssh config', '-p', '2222', '-l', 'ci', '--', 'b1', 'true'],
    ]);
    expect(sshArgv(sshSettings({}), v6, 'true')).toEqual(['ssh', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', '-o', 'SendEnv=-*', '--', '::1', 'true']);
    expect(gitSshCommand(settings)).toBe("'/opt/ssh' -o BatchMode=yes -o ConnectTimeout=5 -o 'SendEnv=-*' -F '/etc/land/ssh config'");
  });

  it('goes through the drain’s master connection when it has a control folder: runs, pushes and the master’s exit alike', () => {
    const settings = { ...sshSettings({ LAND_SSH_CONFIG: '/etc/land/ssh config' }), controlDir: '/tmp/land-ssh-Ab1' };
    const reuse = ['-o', 'ControlMaster=auto', '-o', 'ControlPath=/tmp/land-ssh-Ab1/%C', '-o', 'ControlPersist=60'];
    const alive = ['-o', 'ServerAliveInterval=10', '-o', 'ServerAliveCountMax=3'];
    expect(sshArgv(settings, b1, 'true')).toEqual([
      'ssh',
      ...['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', '-o', 'SendEnv=-*', ...reuse, ...alive],
      ...['-F', '/etc/land/ssh config', '-p', '2222', '-l', 'ci', '--', 'b1', 'true'],
    ]);
    expect(gitSshCommand(settings)).toBe(
      "'ssh' -o BatchMode=yes -o ConnectTimeout=5 -o 'SendEnv=-*' -o ControlMaster=auto -o 'ControlPath=/tmp/land-ssh-Ab1/%C' -o ControlPersist=60 -o ServerAliveInterval=10 -o ServerAliveCountMax=3 -F '/etc/land/ssh config'",
    );
    expect(exitMasterArgv(settings, b1)).toEqual([
      'ssh',
      '-o',
      'BatchMode=yes',
      '-o',
      'ControlPath=/tmp/land-ssh-Ab1/%C',
      '-F',
      '/etc/land/ssh config',
      '-O',
      'exit',
      '-p',
      '2222',
      '-l',
      'ci',
      '--',
      'b1',
    ]);
    expect(exitMasterArgv(sshSettings({}), b1)).toBeNull(); // no control folder: no master to end
    expect(() => sshArgv({ ...settings, controlDir: '/tmp/a b' }, b1, 'true')).toThrow(/not a plain absolute path/);
  });

  it('names the cache repository and the slot refs, and refuses a dir that would need quoting', () => {
    expect(prepareCommand(b1)).toBe('mkdir -p /var/tmp/land && git init -q --bare /var/tmp/land/cache.git');
    expect(cacheUrl(b1)).toBe('ssh://ci@b1:2222/var/tmp/land/cache.git');
    expect(cacheUrl(v6)).toBe('ssh://[::1]/srv/land/cache.git');
    expect(slotRef(3)).toBe('refs/land/slot/3');
    expect(() => slotRef(-1)).toThrow();
    expect(runnerCommand(b1)).toBe('land executor run --dir /var/tmp/land');
    expect(runnerCommand(v6)).toBe('/usr/bin/node /opt/land/dist/bin/land.js executor run --dir /srv/land');
    for (const land of ['land; id', '-oProxyCommand=x', 'land  x', '$(id)']) expect(() => runnerCommand({ ...b1, land }), land).toThrow(/not plain words/);
    for (const dir of ['/tmp/$(id)', 'relative', '/tmp/a b', '/tmp/../etc', '/tmp/;x'])
      expect(() => prepareCommand({ ...b1, dir }), dir).toThrow(/not a plain absolute path/);
  });
});
