// Off a lane with no lane that answers, the batch never runs on this machine: exit 3.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cleanupTempDirs, makeRepo, tempDir } from '../helpers/repo.js';
import { batchArgs, clearedEnv, fakeBatch, runLand } from '../helpers/batchWrapper.js';

afterEach(() => cleanupTempDirs());

it('no lane configured at all: exit 3, nothing run', async () => {
  const repo = makeRepo();
  const scratch = tempDir();
  const r = await runLand(repo.dir, batchArgs('gen', 'm', fakeBatch(join(scratch, 'marker'))), clearedEnv({ LAND_LEDGER_DIR: join(scratch, 'ledger') }));
  expect(r.code).toBe(3);
  expect(r.stderr).toContain('no lane');
  expect(existsSync(join(scratch, 'marker'))).toBe(false);
});

it.each(['LAND_LANE_SSH', 'NEV_LANE_SSH'])('%s names a host that does not resolve: exit 3, nothing run', async (name) => {
  const repo = makeRepo();
  const scratch = tempDir();
  const r = await runLand(
    repo.dir,
    batchArgs('gen', 'm', fakeBatch(join(scratch, 'marker'))),
    clearedEnv({ [name]: 'no-such-lane.invalid', LAND_LEDGER_DIR: join(scratch, 'ledger') }),
  );
  expect(r.code).toBe(3);
  expect(r.stderr).toContain('no-such-lane.invalid does not answer');
  expect(existsSync(join(scratch, 'marker'))).toBe(false);
});

it('an invalid lane file: exit 3, nothing run', async () => {
  const repo = makeRepo();
  const scratch = tempDir();
  mkdirSync(join(repo.dir, '.land'));
  writeFileSync(join(repo.dir, '.land', 'lane.local.json'), '{"ssh": "-oProxyCommand=touch /tmp/x", "dir": "/"}\n');
  const r = await runLand(repo.dir, batchArgs('gen', 'm', fakeBatch(join(scratch, 'marker'))), clearedEnv({ LAND_LEDGER_DIR: join(scratch, 'ledger') }));
  expect(r.code).toBe(3);
  expect(r.stderr).toContain('invalid lane name');
  expect(existsSync(join(scratch, 'marker'))).toBe(false);
});
