// A real lane: an sshd this test starts on 127.0.0.1. The batch must run in the lane's directory
// (the marker records where it ran), the measure dir must come back here, and the lane variable
// must outrank a lane file.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAND_BIN } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo, tempDir } from '../helpers/repo.js';
import { startSshd, type TestSshd } from './sshd.js';
import { FAKE_COUNTS, batchArgs, clearedEnv, fakeBatch, ledgerLines, runLand } from './wrapper.js';

let sshd: TestSshd;

beforeAll(async () => {
  sshd = await startSshd(tempDir('land-sshd-'));
});

afterAll(() => {
  sshd?.stop();
  cleanupTempDirs();
});

function setup() {
  const here = makeRepo();
  const lane = makeRepo();
  const scratch = tempDir();
  return { here, lane, ledger: join(scratch, 'ledger'), marker: join(scratch, 'marker') };
}

function writeLaneFile(repoDir: string, lane: Record<string, string>): void {
  mkdirSync(join(repoDir, '.land'), { recursive: true });
  writeFileSync(join(repoDir, '.land', 'lane.local.json'), JSON.stringify(lane));
}

describe('land batch over an ssh lane', () => {
  it('LAND_LANE_SSH: the batch runs in the lane dir and the measure dir comes back', async () => {
    const { here, lane, ledger, marker } = setup();
    const env = clearedEnv({ LAND_LANE_SSH: sshd.host, LAND_SSH_CONFIG: sshd.config, LAND_LANE_DIR: lane.dir, LAND_LEDGER_DIR: ledger });
    const r = await runLand(here.dir, batchArgs('gen', 'measure', fakeBatch(marker)), env);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe(`${lane.dir}\n`);
    expect(r.stdout).toContain('best: 0.875'); // the lane's output is passed through
    expect(readFileSync(join(here.dir, 'measure', 'batch.log'), 'utf8')).toContain(' 3/4 candidates compiled\n');
    expect(existsSync(join(here.dir, 'measure', 'samples.jsonl'))).toBe(true);
    const lines = ledgerLines(join(ledger, 'gen.jsonl'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ cwd: lane.dir, measureDir: join(lane.dir, 'measure'), gitHead: lane.tip('HEAD'), status: 0 });
    expect(lines[0].counts).toEqual(FAKE_COUNTS);
  });

  it('a lane file names the lane; LAND_LANE_SSH outranks it (an unresolvable name exits 3)', async () => {
    const { here, lane, ledger, marker } = setup();
    writeLaneFile(here.dir, { ssh: sshd.host, dir: lane.dir, node: process.execPath, land: LAND_BIN });
    const env = clearedEnv({ LAND_SSH_CONFIG: sshd.config, LAND_LEDGER_DIR: ledger });
    const viaFile = await runLand(here.dir, batchArgs('gen', 'measure', fakeBatch(marker)), env);
    expect(viaFile.code, viaFile.stderr).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe(`${lane.dir}\n`);

    const marker2 = `${marker}-2`;
    const r = await runLand(here.dir, batchArgs('gen', 'measure', fakeBatch(marker2)), { ...env, LAND_LANE_SSH: 'no-such-lane.invalid' });
    expect(r.code).toBe(3);
    expect(existsSync(marker2)).toBe(false);
    expect(ledgerLines(join(ledger, 'gen.jsonl'))).toHaveLength(1);
  });

  it('a failing batch on the lane: its status comes back, a line is written, the log comes back', async () => {
    const { here, lane, ledger, marker } = setup();
    const env = clearedEnv({ LAND_LANE_SSH: sshd.host, LAND_SSH_CONFIG: sshd.config, LAND_LANE_DIR: lane.dir, LAND_LEDGER_DIR: ledger });
    const r = await runLand(here.dir, batchArgs('gen', 'measure', fakeBatch(marker, 7)), env);
    expect(r.code).toBe(7);
    expect(ledgerLines(join(ledger, 'gen.jsonl'))[0]).toMatchObject({ status: 7 });
    expect(readFileSync(join(here.dir, 'measure', 'batch.log'), 'utf8')).toContain('done, status 7');
  });

  it("the lane's own refusals come back: no ledger dir there is exit 4, nothing run", async () => {
    const { here, lane, marker } = setup();
    const r = await runLand(here.dir, batchArgs('gen', 'measure', fakeBatch(marker)), clearedEnv({ LAND_LANE_SSH: sshd.host, LAND_SSH_CONFIG: sshd.config, LAND_LANE_DIR: lane.dir }));
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('no ledger dir');
    expect(existsSync(marker)).toBe(false);
  });

  it('a lane that answers but has no land.js: exit 3, nothing run', async () => {
    const { here, lane, ledger, marker } = setup();
    writeLaneFile(here.dir, { ssh: sshd.host, dir: lane.dir, land: join(lane.dir, 'missing', 'land.js') });
    const r = await runLand(here.dir, batchArgs('gen', 'measure', fakeBatch(marker)), clearedEnv({ LAND_SSH_CONFIG: sshd.config, LAND_LEDGER_DIR: ledger }));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('cannot run the batch');
    expect(existsSync(marker)).toBe(false);
  });

  it('words reach the lane exactly as given (quotes, $, spaces, newlines)', async () => {
    const { here, lane, ledger } = setup();
    const out = join(lane.dir, 'words');
    const words = [`it's`, '$(touch pwned) `x` $HOME', 'two  spaces', 'line\nbreak', '\\back'];
    const command = ['bash', '-c', 'printf "%s|" "$@" > "$0"', out, ...words];
    const env = clearedEnv({ LAND_LANE_SSH: sshd.host, LAND_SSH_CONFIG: sshd.config, LAND_LANE_DIR: lane.dir, LAND_LEDGER_DIR: `${ledger} it's` });
    const r = await runLand(here.dir, batchArgs('odd.job_1', 'measure dir', command), env);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(`${words.join('|')}|`);
    expect(existsSync(join(lane.dir, 'pwned'))).toBe(false);
    expect(ledgerLines(join(`${ledger} it's`, 'odd.job_1.jsonl'))).toHaveLength(1);
    expect(existsSync(join(here.dir, 'measure dir', 'batch.log'))).toBe(true);
  });
});
