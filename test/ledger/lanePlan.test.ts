import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { planLane, type LanePlanInput } from '../../lib/ledger/lanePlan.js';
import { remoteBatchCommand } from '../../lib/ledger/remoteCommand.js';
import { shellQuote } from '../../lib/ledger/shellQuote.js';

const self = { node: '/usr/bin/node', land: '/opt/land/dist/bin/land.js' };
const goodFile = { kind: 'ok', path: '/repo/.land/lane.local.json', lane: { ssh: 'filelane', dir: '/lane/repo' } } as const;
const plan = (over: Partial<LanePlanInput>) => planLane({ env: {}, policyLane: undefined, laneFile: { kind: 'absent' }, cwd: '/here', self, ...over });

describe('planLane: first match wins', () => {
  it('on a lane (LAND_ON_LANE or NEV_ON_LANE) runs here, whatever else is set', () => {
    expect(plan({ env: { LAND_ON_LANE: '1', LAND_LANE_SSH: 'x' }, laneFile: goodFile }).kind).toBe('here');
    expect(plan({ env: { NEV_ON_LANE: '1' } }).kind).toBe('here');
    expect(plan({ env: { LAND_ON_LANE: '0' } }).kind).toBe('none');
  });

  it('the lane variable outranks the lane file and the policy', () => {
    const result = plan({ env: { NEV_LANE_SSH: 'envlane', LAND_SSH_CONFIG: '/cfg' }, laneFile: goodFile, policyLane: 'local' });
    expect(result).toEqual({ kind: 'ssh', from: 'LAND_LANE_SSH', lane: { ssh: 'envlane', dir: '/here', ...self, sshConfig: '/cfg', sshProgram: 'ssh' } });
    expect(plan({ env: { LAND_LANE_SSH: 'envlane', LAND_LANE_DIR: '/there' } })).toMatchObject({ lane: { dir: '/there' } });
  });

  it('the lane file outranks the policy and may name node and land', () => {
    expect(plan({ laneFile: goodFile, policyLane: 'local' })).toMatchObject({ kind: 'ssh', lane: { ssh: 'filelane', dir: '/lane/repo', node: self.node } });
    const custom = { ...goodFile, lane: { ...goodFile.lane, node: 'node', land: '/l/land.js' } };
    expect(plan({ laneFile: custom })).toMatchObject({ lane: { node: 'node', land: '/l/land.js' } });
  });

  it('policy "local" runs here; another policy lane is an ssh host; nothing is no lane', () => {
    expect(plan({ policyLane: 'local' }).kind).toBe('here');
    expect(plan({ policyLane: 'build-1' })).toMatchObject({ kind: 'ssh', lane: { ssh: 'build-1', dir: '/here' } });
    expect(plan({}).kind).toBe('none');
    expect(plan({ laneFile: { kind: 'invalid', path: '/f', problem: 'bad' }, policyLane: 'local' }).kind).toBe('none');
  });

  it('LAND_SSH names the ssh program of every ssh lane (default ssh)', () => {
    expect(plan({ env: { LAND_LANE_SSH: 'envlane', LAND_SSH: '/opt/fake-ssh' } })).toMatchObject({ lane: { sshProgram: '/opt/fake-ssh' } });
    expect(plan({ laneFile: goodFile, env: { LAND_SSH: '/opt/fake-ssh' } })).toMatchObject({ lane: { sshProgram: '/opt/fake-ssh' } });
    expect(plan({ policyLane: 'build-1' })).toMatchObject({ lane: { sshProgram: 'ssh' } });
  });

  it('refuses a lane name ssh would read as an option', () => {
    expect(plan({ env: { LAND_LANE_SSH: '-oProxyCommand=sh' } })).toMatchObject({ kind: 'none' });
    expect(plan({ env: { LAND_LANE_SSH: 'user@host.example:22' } }).kind).toBe('ssh');
  });
});

describe('the remote command', () => {
  const sh = (script: string) => execFileSync('sh', ['-c', script], { encoding: 'utf8' });

  it('shellQuote survives a shell unchanged', () => {
    const words = [`it's`, '$(echo no) `echo no` $HOME', '', 'a\nb', '\\', `''`, '*'];
    expect(sh(`printf '%s|' ${words.map(shellQuote).join(' ')}`)).toBe(`${words.join('|')}|`);
  });

  it('runs land batch in the lane dir, marked as on a lane in a session, with every word as given and the ledger variables forwarded', () => {
    // node = printf, land = its format: the command prints its own words instead of running land.
    const lane = { ssh: 'h', dir: '/', node: 'printf', land: '%s|', sshConfig: undefined, sshProgram: 'ssh' };
    const command = remoteBatchCommand(lane, {
      job: 'gen',
      measureDir: "m 'dir'",
      command: ['bash', '-c', 'echo "$1"', '_', '$(x)'],
      target: undefined,
      env: { LAND_LEDGER_DIR: "/l it's", LAND_LANE_SSH: 'not-forwarded', HOME: '/nope' },
    });
    expect(command.startsWith("cd '/' && LAND_ON_LANE=1 LAND_LANE_SESSION=1 LAND_LEDGER_DIR='/l it'\\''s' 'printf'")).toBe(true);
    expect(sh(command)).toBe(`batch|--job|gen|--measure-dir|m 'dir'|--|bash|-c|echo "$1"|_|$(x)|`);
    expect(sh(command.replace(/ 'printf' .*/, ' env')).split('\n')).toEqual(
      expect.arrayContaining(['LAND_ON_LANE=1', 'LAND_LANE_SESSION=1', "LAND_LEDGER_DIR=/l it's"]),
    );
  });
});
