// `land ledger show` and `land ledger verify` against a ledger the wrapper wrote.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeRepo, tempDir } from '../helpers/repo.js';
import { batchArgs, clearedEnv, fakeBatch, runLand } from '../helpers/batchWrapper.js';

afterEach(() => cleanupTempDirs());

async function ledgerWithOneBatch() {
  const repo = makeRepo();
  const scratch = tempDir();
  const ledger = join(scratch, 'ledger');
  const before = new Date().toISOString();
  const env = clearedEnv({ LAND_ON_LANE: '1', LAND_LEDGER_DIR: ledger });
  const r = await runLand(repo.dir, batchArgs('gen', 'm', fakeBatch(join(scratch, 'marker'))), env);
  expect(r.code).toBe(0);
  return { repo, ledger, before, env };
}

describe('land ledger', () => {
  it('show: a table, or one JSON line per ledger line; a torn last line is reported on stderr', async () => {
    const { repo, ledger, env } = await ledgerWithOneBatch();
    const human = await runLand(repo.dir, ['ledger', 'show', '--job', 'gen'], env);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('compiled 4/5, received 6, tokens 1234, scored 5, best 0.875');
    appendFileSync(join(ledger, 'gen.jsonl'), '{"version":1,"jo');
    const json = await runLand(repo.dir, ['ledger', 'show', '--job', 'gen', '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    const lines = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ job: 'gen', version: 1 });
    expect(json.stderr).toContain('last line is incomplete');
  });

  it('verify: 0 when a batch since the time left a line, 4 when none did, 2 for a bad time', async () => {
    const { repo, before, env } = await ledgerWithOneBatch();
    const ok = await runLand(repo.dir, ['ledger', 'verify', '--job', 'gen', '--since', before], env);
    expect(ok.code, ok.stderr).toBe(0);
    const later = await runLand(repo.dir, ['ledger', 'verify', '--job', 'gen', '--since', new Date(Date.now() + 60_000).toISOString()], env);
    expect(later.code).toBe(4);
    expect(later.stderr.trim().split('\n')).toHaveLength(1);
    expect(later.stderr).toContain('no ledger line for gen since');
    const otherJob = await runLand(repo.dir, ['ledger', 'verify', '--job', 'other', '--since', before], env);
    expect(otherJob.code).toBe(4);
    expect((await runLand(repo.dir, ['ledger', 'verify', '--job', 'gen', '--since', 'yesterday-ish'], env)).code).toBe(2);
  });

  it('no ledger dir: a clear error, exit 4', async () => {
    const repo = makeRepo();
    const r = await runLand(repo.dir, ['ledger', 'show', '--job', 'gen'], clearedEnv());
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('no ledger dir');
  });
});
