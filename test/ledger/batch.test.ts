// `land batch` on a lane (LAND_ON_LANE=1): however the command ends (success, failure, a signal to
// the wrapper), a ledger line must be written, or the wrapper must say it was not and fail.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeRepo, tempDir } from '../helpers/repo.js';
import { FAKE_COUNTS, batchArgs, clearedEnv, fakeBatch, ledgerLines, runLand, startLand, waitForFile } from '../helpers/batchWrapper.js';

afterEach(() => cleanupTempDirs());

function setup() {
  const repo = makeRepo();
  const scratch = tempDir();
  return { repo, ledger: join(scratch, 'ledger'), marker: join(scratch, 'marker'), scratch };
}

describe('land batch on a lane: the run and its ledger line', () => {
  it('passing batch: one new line for the job with the counts from its log', async () => {
    const { repo, ledger, marker } = setup();
    mkdirSync(ledger);
    writeFileSync(join(ledger, 'gen.jsonl'), '{"earlier":"line"}\n');
    // It sleeps a second so that the 200 ms sampler sees it running.
    const r = await runLand(repo.dir, batchArgs('gen', 'measure', fakeBatch(marker, 0, 1)), clearedEnv({ LAND_ON_LANE: '1', LAND_LEDGER_DIR: ledger }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('3/4 candidates compiled');
    const lines = ledgerLines(join(ledger, 'gen.jsonl'));
    expect(lines).toHaveLength(2);
    const line = lines[1];
    expect(line).toMatchObject({ version: 1, job: 'gen', track: 'gen', exitCode: 0, signal: null, status: 0, interruptedBy: null });
    expect(line.counts).toEqual(FAKE_COUNTS);
    expect(line.gitHead).toBe(repo.tip('HEAD'));
    expect(line.measureDir).toBe(join(repo.dir, 'measure'));
    expect(Date.parse(line.end)).toBeGreaterThanOrEqual(Date.parse(line.start));
    expect(line.wallSeconds).toBeGreaterThanOrEqual(0);
    expect(line.cpuHours).toBeCloseTo(line.cpuSeconds / 3600, 5);
    expect(line.peakRssBytes).toBeGreaterThan(0);
    const log = readFileSync(join(repo.dir, 'measure', 'batch.log'), 'utf8')
      .trim()
      .split('\n');
    expect(log.some((l) => /^\d{4}-\d\d-\d\dT[\d:.]+Z best: 0\.875$/.test(l))).toBe(true);
    expect(log.some((l) => l.endsWith(' received: 2'))).toBe(true); // stderr is logged too
    expect(existsSync(join(repo.dir, 'measure', 'samples.jsonl'))).toBe(true);
  });

  it('failing command: its status is returned and a line is still written', async () => {
    const { repo, ledger, marker } = setup();
    const r = await runLand(repo.dir, batchArgs('gen', 'measure', fakeBatch(marker, 7)), clearedEnv({ LAND_ON_LANE: '1', LAND_LEDGER_DIR: ledger }));
    expect(r.code).toBe(7);
    const lines = ledgerLines(join(ledger, 'gen.jsonl'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ exitCode: 7, status: 7, counts: FAKE_COUNTS });
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s to the wrapper during the batch: the group is stopped and a line is still written', async (signal, status) => {
    const { repo, ledger, marker } = setup();
    const run = startLand(repo.dir, batchArgs('gen', 'measure', fakeBatch(marker, 0, 30)), clearedEnv({ LAND_ON_LANE: '1', LAND_LEDGER_DIR: ledger }));
    await waitForFile(marker);
    await new Promise((r) => setTimeout(r, 300)); // let it reach the sleep
    run.child.kill(signal);
    const r = await run.done;
    expect(r.code).toBe(status);
    const [line] = ledgerLines(join(ledger, 'gen.jsonl'));
    expect(line).toMatchObject({ exitCode: null, signal, status, interruptedBy: signal });
    expect(line.wallSeconds).toBeLessThan(20);
    expect(line.counts.best).toBe(0.875);
  });

  it('CPU time of the whole process tree is counted (a busy grandchild)', async () => {
    const { repo, ledger } = setup();
    const busy = `"${process.execPath}" -e "const t = Date.now(); while (Date.now() - t < 1500) {}"`;
    const r = await runLand(repo.dir, batchArgs('gen', 'measure', ['bash', '-c', `${busy}; true`]), clearedEnv({ LAND_ON_LANE: '1', LAND_LEDGER_DIR: ledger }));
    expect(r.code).toBe(0);
    const [line] = ledgerLines(join(ledger, 'gen.jsonl'));
    expect(line.cpuSeconds).toBeGreaterThan(0.3);
    expect(line.peakRssBytes).toBeGreaterThan(1_000_000);
  });

  it('a ledger dir that cannot be written (under a regular file): exit 5, or the failed status', async () => {
    const { repo, marker, scratch } = setup();
    writeFileSync(join(scratch, 'file'), 'not a dir\n');
    const env = clearedEnv({ LAND_ON_LANE: '1', LAND_LEDGER_DIR: join(scratch, 'file', 'ledger') });
    const ok = await runLand(repo.dir, batchArgs('gen', 'measure', fakeBatch(marker)), env);
    expect(ok.code).toBe(5);
    expect(existsSync(marker)).toBe(true); // the batch ran; its cost is unrecorded
    expect(ok.stderr.split('\n').filter((l) => l.includes('no ledger line was written'))).toHaveLength(1);
    const failed = await runLand(repo.dir, batchArgs('gen', 'measure', fakeBatch(marker, 9)), env);
    expect(failed.code).toBe(9);
    expect(failed.stderr).toContain('no ledger line was written');
  });

  it('a command that does not exist: 127 and a line is still written', async () => {
    const { repo, ledger } = setup();
    const r = await runLand(repo.dir, batchArgs('gen', 'measure', ['/nonexistent/batch']), clearedEnv({ LAND_ON_LANE: '1', LAND_LEDGER_DIR: ledger }));
    expect(r.code).toBe(127);
    expect(ledgerLines(join(ledger, 'gen.jsonl'))[0]).toMatchObject({ status: 127 });
  });
});
