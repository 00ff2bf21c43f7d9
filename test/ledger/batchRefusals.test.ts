// `land batch`: the checks made before the command runs (provider, ledger dir, job name, .env) and
// where the line goes. The marker file says whether the batch ran: a refusal must leave none.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeRepo, tempDir } from '../helpers/repo.js';
import { batchArgs, clearedEnv, fakeBatch, ledgerLines, runLand } from '../helpers/batchWrapper.js';

afterEach(() => cleanupTempDirs());

function setup() {
  const repo = makeRepo();
  const scratch = tempDir();
  return { repo, ledger: join(scratch, 'ledger'), marker: join(scratch, 'marker'), scratch };
}

describe('land batch: what is checked before the command runs', () => {
  it.each([
    ['LAND_PROVIDER', 'anthropic'],
    ['NEV_PROVIDER', 'anthropic'],
  ])('%s=%s: exit 2 and nothing runs', async (name, value) => {
    const { repo, ledger, marker } = setup();
    const r = await runLand(
      repo.dir,
      batchArgs('gen', 'measure', fakeBatch(marker)),
      clearedEnv({ LAND_ON_LANE: '1', LAND_LEDGER_DIR: ledger, [name]: value }),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('provider "anthropic" is not allowed');
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(ledger)).toBe(false);
  });

  it('a provider the policy allows runs; a provider named only in .env is checked too', async () => {
    const { repo, ledger, marker } = setup();
    repo.policy({ target: 'main', ledger: { providers: ['claude-code', 'local-model'] } });
    const env = clearedEnv({ LAND_ON_LANE: '1', LAND_LEDGER_DIR: ledger, LAND_PROVIDER: 'local-model' });
    expect((await runLand(repo.dir, batchArgs('gen', 'measure', fakeBatch(marker)), env)).code).toBe(0);
    writeFileSync(join(repo.dir, '.env'), 'NEV_PROVIDER=anthropic\n');
    const marker2 = `${marker}-2`;
    const r = await runLand(repo.dir, batchArgs('gen', 'measure', fakeBatch(marker2)), clearedEnv({ LAND_ON_LANE: '1', LAND_LEDGER_DIR: ledger }));
    expect(r.code).toBe(2);
    expect(existsSync(marker2)).toBe(false);
  });

  it('no ledger dir: exit 4 before anything runs', async () => {
    const { repo, marker, scratch } = setup();
    for (const extra of [{}, { LAND_LANE_SHARED: join(scratch, 'not-mounted') }] as Record<string, string>[]) {
      const r = await runLand(repo.dir, batchArgs('gen', 'measure', fakeBatch(marker)), clearedEnv({ LAND_ON_LANE: '1', ...extra }));
      expect(r.code).toBe(4);
      expect(r.stderr).toContain('no ledger dir');
      expect(existsSync(marker)).toBe(false);
    }
  });

  it('explicit ledger dir and shared lane dir both set: the explicit one is written', async () => {
    const { repo, ledger, marker, scratch } = setup();
    const shared = join(scratch, 'shared');
    mkdirSync(shared);
    const r = await runLand(
      repo.dir,
      batchArgs('gen', 'measure', fakeBatch(marker)),
      clearedEnv({ LAND_ON_LANE: '1', LAND_LEDGER_DIR: ledger, LAND_LANE_SHARED: shared }),
    );
    expect(r.code).toBe(0);
    expect(ledgerLines(join(ledger, 'gen.jsonl'))).toHaveLength(1);
    expect(existsSync(join(shared, 'ledger'))).toBe(false);
  });

  it.each(['NEV_LANE_SHARED', 'GENERA_LANE_SHARED'])('only %s set: <shared>/ledger is written', async (name) => {
    const { repo, marker, scratch } = setup();
    const shared = join(scratch, 'shared');
    mkdirSync(shared);
    const r = await runLand(repo.dir, batchArgs('gen', 'measure', fakeBatch(marker)), clearedEnv({ NEV_ON_LANE: '1', [name]: shared }));
    expect(r.code).toBe(0);
    expect(ledgerLines(join(shared, 'ledger', 'gen.jsonl'))).toHaveLength(1);
  });

  it('policy ledger.lane "local" runs here; ledger.dir is used when no variable names one', async () => {
    const { repo, marker } = setup();
    repo.policy({ target: 'main', ledger: { lane: 'local', dir: 'ledger-store' } });
    const r = await runLand(repo.dir, batchArgs('gen', 'measure', fakeBatch(marker)), clearedEnv());
    expect(r.code, r.stderr).toBe(0);
    expect(ledgerLines(join(repo.dir, 'ledger-store', 'gen.jsonl'))).toHaveLength(1);
  });

  it('.env is loaded under the environment and none of its values is printed', async () => {
    const { repo, ledger, scratch } = setup();
    const out = join(scratch, 'seen');
    writeFileSync(join(repo.dir, '.env'), `# model address\nMODEL_URL="http://secret-host:1234"\nLAND_LEDGER_DIR=${ledger}\nKEEP=from-dotenv\n`);
    const command = ['bash', '-c', `printf '%s|%s|%s\\n' "$MODEL_URL" "$KEEP" "$LAND_LEDGER_TRACK" > '${out}'`];
    const r = await runLand(repo.dir, batchArgs('gen', 'measure', command), clearedEnv({ LAND_ON_LANE: '1', KEEP: 'from-env' }));
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('http://secret-host:1234|from-env|gen\n');
    expect(`${r.stdout}${r.stderr}`).not.toContain('secret-host');
    expect(ledgerLines(join(ledger, 'gen.jsonl'))).toHaveLength(1);
  });

  it('a job name that is not a plain name is a usage error and nothing runs', async () => {
    const { repo, ledger, marker } = setup();
    for (const job of ['../escape', 'a/b', '']) {
      const r = await runLand(repo.dir, batchArgs(job, 'measure', fakeBatch(marker)), clearedEnv({ LAND_ON_LANE: '1', LAND_LEDGER_DIR: ledger }));
      expect(r.code).toBe(2);
    }
    expect(existsSync(marker)).toBe(false);
  });
});
