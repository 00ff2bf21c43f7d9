// The lane cases every ssh lane must pass, whatever carries them: the stand-in ssh
// (fixtures/ssh/fake-ssh, lane.test.ts, always run) and a real sshd (laneSshd.test.ts). The batch
// must run in the lane's directory (the marker records where it ran), words must reach the lane
// exactly, the lane's status and refusals must come back, and the measure dir must come back here.
// An interrupted batch (a signal here, or the ssh session lost) leaves its ledger line on the lane
// and nothing of it running there.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it as vitestIt } from 'vitest';
import { LAND_BIN } from './cli.js';
import { makeRepo, tempDir } from './repo.js';
import {
  FAKE_COUNTS,
  batchArgs,
  batchProcessesLeft,
  clearedEnv,
  fakeBatch,
  ledgerLines,
  pidBatch,
  runLand,
  startLand,
  waitFor,
  waitForFile,
} from './batchWrapper.js';

export interface TestLane {
  /** The name to give as the lane (LAND_LANE_SSH or a lane file's "ssh"). */
  host: string;
  /** What land needs to reach it: LAND_SSH, LAND_SSH_CONFIG, the stand-in's settings. */
  env: Record<string, string>;
}

export function laneSetup() {
  const here = makeRepo();
  const lane = makeRepo();
  const scratch = tempDir();
  return { here, lane, scratch, ledger: join(scratch, 'ledger'), marker: join(scratch, 'marker') };
}

export function writeLaneFile(repoDir: string, lane: Record<string, string>): void {
  mkdirSync(join(repoDir, '.land'), { recursive: true });
  writeFileSync(join(repoDir, '.land', 'lane.local.json'), JSON.stringify(lane));
}

/** Which shared cases a lane runs: all of them, or the ones that exercise the ssh transport itself. */
export type LaneCaseSet = 'all' | 'transport';

/**
 * Lane behaviour that does not depend on the transport (which lane a lane file names, the lane's
 * own refusals, a missing land.js, SIGINT as well as SIGTERM): run through the stand-in ssh only.
 * The real sshd runs the cases where ssh itself could differ: the batch and its measure dir,
 * a status coming back, quoting, a signal, a lost session, a killed wrapper.
 */
const TRANSPORT_INDEPENDENT = [/^a lane file names/, /^the lane's own refusals/, /^a lane that answers but has no land\.js/, /^SIGINT /];

/** Registers the shared cases; `lane()` is called inside each test (after beforeAll). */
export function laneCases(lane: () => TestLane, set: LaneCaseSet = 'all'): void {
  const wanted = (title: string) => set === 'all' || !TRANSPORT_INDEPENDENT.some((pattern) => pattern.test(title));
  const it = (title: string, fn: () => Promise<void>, timeout?: number) => {
    if (wanted(title)) vitestIt(title, fn, timeout);
  };
  const viaEnv = (laneDir: string, extra: Record<string, string> = {}) => {
    const { host, env } = lane();
    return clearedEnv({ ...env, LAND_LANE_SSH: host, LAND_LANE_DIR: laneDir, ...extra });
  };

  it('LAND_LANE_SSH: the batch runs in the lane dir and the measure dir comes back', async () => {
    const { here, lane: laneRepo, ledger, marker } = laneSetup();
    const r = await runLand(here.dir, batchArgs('gen', 'measure', fakeBatch(marker)), viaEnv(laneRepo.dir, { LAND_LEDGER_DIR: ledger }));
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe(`${laneRepo.dir}\n`);
    expect(r.stdout).toContain('best: 0.875'); // the lane's output is passed through
    expect(readFileSync(join(here.dir, 'measure', 'batch.log'), 'utf8')).toContain(' 3/4 candidates compiled\n');
    expect(existsSync(join(here.dir, 'measure', 'samples.jsonl'))).toBe(true);
    const lines = ledgerLines(join(ledger, 'gen.jsonl'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ cwd: laneRepo.dir, measureDir: join(laneRepo.dir, 'measure'), gitHead: laneRepo.tip('HEAD'), status: 0 });
    expect(lines[0].counts).toEqual(FAKE_COUNTS);
  });

  it('a lane file names the lane; LAND_LANE_SSH outranks it (an unresolvable name exits 3)', async () => {
    const { here, lane: laneRepo, ledger, marker } = laneSetup();
    const { host, env: laneEnv } = lane();
    writeLaneFile(here.dir, { ssh: host, dir: laneRepo.dir, node: process.execPath, land: LAND_BIN });
    const env = clearedEnv({ ...laneEnv, LAND_LEDGER_DIR: ledger });
    const viaFile = await runLand(here.dir, batchArgs('gen', 'measure', fakeBatch(marker)), env);
    expect(viaFile.code, viaFile.stderr).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe(`${laneRepo.dir}\n`);

    const marker2 = `${marker}-2`;
    const r = await runLand(here.dir, batchArgs('gen', 'measure', fakeBatch(marker2)), { ...env, LAND_LANE_SSH: 'no-such-lane.invalid' });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('no-such-lane.invalid does not answer');
    expect(existsSync(marker2)).toBe(false);
    expect(ledgerLines(join(ledger, 'gen.jsonl'))).toHaveLength(1);
  });

  it('a failing batch on the lane: its status comes back, a line is written, the log comes back', async () => {
    const { here, lane: laneRepo, ledger, marker } = laneSetup();
    const r = await runLand(here.dir, batchArgs('gen', 'measure', fakeBatch(marker, 7)), viaEnv(laneRepo.dir, { LAND_LEDGER_DIR: ledger }));
    expect(r.code).toBe(7);
    expect(ledgerLines(join(ledger, 'gen.jsonl'))[0]).toMatchObject({ status: 7 });
    expect(readFileSync(join(here.dir, 'measure', 'batch.log'), 'utf8')).toContain('done, status 7');
  });

  it("the lane's own refusals come back: no ledger dir there is exit 4, nothing run", async () => {
    const { here, lane: laneRepo, marker } = laneSetup();
    const r = await runLand(here.dir, batchArgs('gen', 'measure', fakeBatch(marker)), viaEnv(laneRepo.dir));
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('no ledger dir');
    expect(existsSync(marker)).toBe(false);
  });

  it('a lane that answers but has no land.js: exit 3, nothing run', async () => {
    const { here, lane: laneRepo, ledger, marker } = laneSetup();
    const { host, env: laneEnv } = lane();
    writeLaneFile(here.dir, { ssh: host, dir: laneRepo.dir, land: join(laneRepo.dir, 'missing', 'land.js') });
    const r = await runLand(here.dir, batchArgs('gen', 'measure', fakeBatch(marker)), clearedEnv({ ...laneEnv, LAND_LEDGER_DIR: ledger }));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('cannot run the batch');
    expect(existsSync(marker)).toBe(false);
  });

  it('words reach the lane exactly as given (quotes, $, spaces, newlines, globs, ;)', async () => {
    const { here, lane: laneRepo, ledger } = laneSetup();
    const out = join(laneRepo.dir, 'words');
    const words = [`it's`, '$(touch pwned) `x` $HOME', 'two  spaces', 'line\nbreak', '\\back', '*', 'a;b|c&&d', '"dq"', ''];
    const command = ['bash', '-c', 'printf "%s|" "$@" > "$0"', out, ...words];
    const env = viaEnv(laneRepo.dir, { LAND_LEDGER_DIR: `${ledger} it's` });
    const r = await runLand(here.dir, batchArgs('odd.job_1', 'measure dir', command), env);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(`${words.join('|')}|`);
    expect(existsSync(join(laneRepo.dir, 'pwned'))).toBe(false);
    expect(ledgerLines(join(`${ledger} it's`, 'odd.job_1.jsonl'))).toHaveLength(1);
    expect(existsSync(join(here.dir, 'measure dir', 'batch.log'))).toBe(true);
  });

  for (const [signal, status] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    it(`${signal} to the wrapper here: the lane stops the batch and writes its line, nothing is left running there, the log comes back`, async () => {
      const { here, lane: laneRepo, ledger, marker, scratch } = laneSetup();
      const pidFile = join(scratch, 'pid');
      const run = startLand(here.dir, batchArgs('gen', 'measure', pidBatch(pidFile, marker, 0, 30)), viaEnv(laneRepo.dir, { LAND_LEDGER_DIR: ledger }));
      await waitForFile(marker, 20_000);
      await waitFor(() => readFileSync(join(laneRepo.dir, 'measure', 'batch.log'), 'utf8').includes('sleeping 30'), 'the batch to sleep');
      run.child.kill(signal);
      const r = await run.done;
      expect(r.code, r.stderr).toBe(status);
      expect(r.stderr).toContain(`${signal}: stopping the batch on ${lane().host}`);
      const [line, ...more] = ledgerLines(join(ledger, 'gen.jsonl'));
      expect(more).toHaveLength(0);
      expect(line).toMatchObject({ cwd: laneRepo.dir, signal, status, interruptedBy: signal });
      expect(line.wallSeconds).toBeLessThan(20);
      expect(batchProcessesLeft(pidFile)).toBe(0);
      const log = readFileSync(join(here.dir, 'measure', 'batch.log'), 'utf8');
      expect(log).toContain('sleeping 30');
      expect(log).toContain(`the session that started this batch ended; stopping it (${signal})`);
      expect(log).not.toContain('done, status');
    });
  }

  it('the session lost (the wrapper here and its ssh killed together): the lane still stops the batch and writes its line', async () => {
    const { here, lane: laneRepo, ledger, marker, scratch } = laneSetup();
    const pidFile = join(scratch, 'pid');
    const env = viaEnv(laneRepo.dir, { LAND_LEDGER_DIR: ledger });
    const run = startLand(here.dir, batchArgs('gen', 'measure', pidBatch(pidFile, marker, 0, 30)), env, { group: true });
    await waitForFile(marker, 20_000);
    await waitFor(() => readFileSync(join(laneRepo.dir, 'measure', 'batch.log'), 'utf8').includes('sleeping 30'), 'the batch to sleep');
    // As a gate's timeout or a terminal's Ctrl-C does: the whole group here, ssh included.
    process.kill(-(run.child.pid ?? 0), 'SIGTERM');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(143);
    await waitFor(() => ledgerLines(join(ledger, 'gen.jsonl')).length > 0, 'the ledger line on the lane', 15_000);
    expect(ledgerLines(join(ledger, 'gen.jsonl'))[0]).toMatchObject({ cwd: laneRepo.dir, signal: 'SIGTERM', status: 143, interruptedBy: 'SIGTERM' });
    await waitFor(() => batchProcessesLeft(pidFile) === 0, 'nothing of the batch left running');
  });

  it('the wrapper here killed (SIGKILL): ssh sees its stdin end, and the lane stops the batch and writes its line', async () => {
    const { here, lane: laneRepo, ledger, marker, scratch } = laneSetup();
    const pidFile = join(scratch, 'pid');
    const run = startLand(here.dir, batchArgs('gen', 'measure', pidBatch(pidFile, marker, 0, 30)), viaEnv(laneRepo.dir, { LAND_LEDGER_DIR: ledger }));
    await waitForFile(marker, 20_000);
    await waitFor(() => readFileSync(join(laneRepo.dir, 'measure', 'batch.log'), 'utf8').includes('sleeping 30'), 'the batch to sleep');
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL'); // done once ssh, holding its output, has ended too
    await waitFor(() => ledgerLines(join(ledger, 'gen.jsonl')).length > 0, 'the ledger line on the lane', 15_000);
    expect(ledgerLines(join(ledger, 'gen.jsonl'))[0]).toMatchObject({ cwd: laneRepo.dir, signal: 'SIGTERM', status: 143, interruptedBy: 'SIGTERM' });
    await waitFor(() => batchProcessesLeft(pidFile) === 0, 'nothing of the batch left running');
  });
}
