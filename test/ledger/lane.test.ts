// `land batch` over an ssh lane, through the stand-in ssh (fixtures/ssh/fake-ssh, named by
// LAND_SSH), so that it runs on every machine: the shared lane cases, then what only the stand-in
// can show (which program land starts and with which arguments). The same cases run through a
// real sshd in laneSshd.test.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';
import { FAKE_SSH } from '../helpers/fakeSsh.js';
import { laneCases, laneSetup, type TestLane } from '../helpers/laneCases.js';
import { batchArgs, clearedEnv, fakeBatch, killLeftoverBatches, runLand } from '../helpers/batchWrapper.js';

let fake: TestLane;

beforeAll(() => {
  // The remote user's HOME is a folder of its own, as on another machine.
  fake = { host: 'fakelane', env: { LAND_SSH: FAKE_SSH, FAKE_SSH_HOSTS: 'fakelane', FAKE_SSH_HOME: tempDir('land-fake-home-') } };
});

afterAll(() => cleanupTempDirs());
afterEach(() => killLeftoverBatches());

describe('land batch over an ssh lane (the stand-in ssh)', () => {
  laneCases(() => fake);

  it('LAND_SSH is the program land starts: probe, run and copy-back, each with BatchMode and the host', async () => {
    const { here, lane, ledger, marker, scratch } = laneSetup();
    const log = join(scratch, 'ssh.log');
    const config = join(scratch, 'ssh_config');
    writeFileSync(config, 'Host fakelane\n');
    const env = clearedEnv({
      ...fake.env,
      FAKE_SSH_LOG: log,
      LAND_SSH_CONFIG: config,
      LAND_LANE_SSH: 'fakelane',
      LAND_LANE_DIR: lane.dir,
      LAND_LEDGER_DIR: ledger,
    });
    const r = await runLand(here.dir, batchArgs('gen', 'measure', fakeBatch(marker)), env);
    expect(r.code, r.stderr).toBe(0);
    const calls = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      expect(call.argv.slice(0, 6)).toEqual(['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', '-F', config]);
      expect(call.destination).toBe('fakelane');
      expect(call.command).toHaveLength(1); // one word: land quotes the remote command itself
    }
    expect(calls.map((call) => call.command[0])).toEqual([
      expect.stringContaining('test -f'),
      expect.stringContaining("'batch' '--job' 'gen'"),
      expect.stringContaining('tar -C'),
    ]);
  });

  it('LAND_SSH naming a program that does not exist: exit 3, nothing run, the reason given', async () => {
    const { here, lane, ledger, marker } = laneSetup();
    const missing = join(lane.dir, 'no-such-ssh');
    const env = clearedEnv({ LAND_SSH: missing, LAND_LANE_SSH: 'fakelane', LAND_LANE_DIR: lane.dir, LAND_LEDGER_DIR: ledger });
    const r = await runLand(here.dir, batchArgs('gen', 'measure', fakeBatch(marker)), env);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`fakelane does not answer (cannot start ${missing}: ENOENT)`);
  });
});
