// The lane's side of an ssh session, without ssh: the wrapper started with LAND_LANE_SESSION=1
// (as a lane's remote command is) takes the end of its stdin as the other side being gone, and no
// wrapper dies of its output going away. What breaks: the session (stdin, stdout, stderr) or only
// the reader of stdout. What must survive: a ledger line for every batch, and no process of it left.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { signalFromSessionInput } from '../../lib/ledger/laneSession.js';
import { runMeasured } from '../../lib/ledger/runMeasured.js';
import { cleanupTempDirs, makeRepo, tempDir } from '../helpers/repo.js';
import {
  batchArgs,
  batchProcessesLeft,
  clearedEnv,
  killLeftoverBatches,
  ledgerLines,
  pidBatch,
  startLand,
  trackBatch,
  waitFor,
  waitForFile,
} from '../helpers/batchWrapper.js';

afterEach(() => {
  killLeftoverBatches();
  cleanupTempDirs();
});

function setup() {
  const repo = makeRepo();
  const scratch = tempDir();
  return { repo, scratch, ledger: join(scratch, 'ledger'), pidFile: join(scratch, 'pid'), marker: join(scratch, 'marker') };
}

/** A batch that writes its pid (its process group) and then a line every 50 ms, for ever. */
function tickingBatch(pidFile: string): string[] {
  return ['bash', '-c', 'echo $$ > "$0"; i=0; while :; do i=$((i+1)); echo "tick $i"; sleep 0.05; done', trackBatch(pidFile)];
}

const sessionEnv = (ledger: string) => clearedEnv({ LAND_ON_LANE: '1', LAND_LANE_SESSION: '1', LAND_LEDGER_DIR: ledger });
const ticks = (log: string) => log.split('\n').filter((line) => / tick \d+$/.test(line)).length;

describe('the lane side of a session (LAND_LANE_SESSION=1)', () => {
  it('the session lost mid-batch (stdin ends, the output is closed): the batch is stopped, the line written, the log kept', async () => {
    const { repo, ledger, pidFile } = setup();
    const run = startLand(repo.dir, batchArgs('gen', 'measure', tickingBatch(pidFile)), sessionEnv(ledger), { stdin: true });
    await waitForFile(pidFile);
    const log = join(repo.dir, 'measure', 'batch.log');
    await waitFor(() => ticks(readFileSync(log, 'utf8')) >= 2, 'the batch to tick');
    // As sshd does when the session ends: the output pipes are closed, then stdin reaches EOF.
    run.child.stdout?.destroy();
    run.child.stderr?.destroy();
    const before = ticks(readFileSync(log, 'utf8'));
    await waitFor(() => ticks(readFileSync(log, 'utf8')) >= before + 5, 'more ticks after the output was closed');
    expect(run.child.exitCode).toBeNull(); // its output gone, the wrapper still runs and logs
    run.child.stdin?.end();
    const r = await run.done;
    expect(r.code).toBe(143);
    const [line, ...more] = ledgerLines(join(ledger, 'gen.jsonl'));
    expect(more).toHaveLength(0);
    expect(line).toMatchObject({ signal: 'SIGTERM', status: 143, interruptedBy: 'SIGTERM' });
    expect(batchProcessesLeft(pidFile)).toBe(0);
    expect(readFileSync(log, 'utf8')).toContain('the session that started this batch ended; stopping it (SIGTERM)');
  });

  it('the signal the other side names before ending stdin is the one the batch gets and the line records', async () => {
    const { repo, ledger, pidFile, marker } = setup();
    const run = startLand(repo.dir, batchArgs('gen', 'measure', pidBatch(pidFile, marker, 0, 30)), sessionEnv(ledger), { stdin: true });
    await waitFor(() => run.stdoutSoFar().includes('sleeping 30'), 'the batch to sleep');
    run.child.stdin?.end('SIGINT\n');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stdout).not.toContain('done, status');
    expect(ledgerLines(join(ledger, 'gen.jsonl'))).toEqual([expect.objectContaining({ signal: 'SIGINT', status: 130, interruptedBy: 'SIGINT' })]);
    expect(batchProcessesLeft(pidFile)).toBe(0);
  });

  it('the batch itself does not get the session mark, and a session that stays open changes nothing', async () => {
    const { repo, ledger, scratch } = setup();
    const out = join(scratch, 'out');
    const command = ['bash', '-c', 'echo "[${LAND_LANE_SESSION-unset}][${LAND_ON_LANE-}]" > "$0"; sleep 0.3', out];
    const run = startLand(repo.dir, batchArgs('gen', 'measure', command), sessionEnv(ledger), { stdin: true });
    const r = await run.done; // stdin still open: the wrapper ends with its batch
    run.child.stdin?.end();
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('[unset][1]\n');
    expect(ledgerLines(join(ledger, 'gen.jsonl'))).toEqual([expect.objectContaining({ status: 0, interruptedBy: null })]);
  });

  it('without the mark, stdin means nothing: an empty stdin does not stop the batch', async () => {
    const { repo, ledger } = setup();
    const command = ['bash', '-c', 'sleep 0.5; echo finished'];
    const run = startLand(repo.dir, batchArgs('gen', 'measure', command), clearedEnv({ LAND_ON_LANE: '1', LAND_LEDGER_DIR: ledger }), { stdin: true });
    run.child.stdin?.end();
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('finished\n');
    expect(ledgerLines(join(ledger, 'gen.jsonl'))).toEqual([expect.objectContaining({ status: 0, interruptedBy: null })]);
  });
});

describe('a wrapper whose reader goes away', () => {
  it('`land batch ... | head -1`: the batch runs to its end, the log and the ledger line are written', async () => {
    const { repo, ledger, scratch } = setup();
    const pidFile = join(scratch, 'pid');
    const command = ['bash', '-c', 'echo $$ > "$0"; for i in $(seq 1 30); do echo "tick $i"; sleep 0.02; done', trackBatch(pidFile)];
    const run = startLand(repo.dir, batchArgs('gen', 'measure', command), clearedEnv({ LAND_ON_LANE: '1', LAND_LEDGER_DIR: ledger }));
    await waitFor(() => run.stdoutSoFar().includes('tick 1\n'), 'the first line');
    run.child.stdout?.destroy();
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(ticks(readFileSync(join(repo.dir, 'measure', 'batch.log'), 'utf8'))).toBe(30);
    expect(ledgerLines(join(ledger, 'gen.jsonl'))).toEqual([expect.objectContaining({ status: 0, interruptedBy: null })]);
  });
});

describe('stopping a batch whose caller is gone (runMeasured)', () => {
  it('a group that ignores the signal is killed after the grace: the leader and what it left running', async () => {
    const measureDir = tempDir();
    const pidFile = join(measureDir, 'pid');
    // The leader and a background child both ignore SIGTERM.
    const command = ['bash', '-c', 'trap "" TERM; echo $$ > "$0"; sleep 30 & sleep 30', trackBatch(pidFile)];
    let callerGone: (signal: NodeJS.Signals) => void = () => undefined;
    const sink = () => new PassThrough().resume();
    const started = Date.now();
    const running = runMeasured({
      command,
      cwd: measureDir,
      env: clearedEnv(),
      measureDir,
      onLine: () => undefined,
      callerGone: new Promise((resolve) => (callerGone = resolve)),
      stopGraceMs: 300,
      passTo: { stdout: sink(), stderr: sink() },
    });
    await waitForFile(pidFile);
    callerGone('SIGTERM');
    const ran = await running;
    expect(ran).toMatchObject({ signal: 'SIGKILL', status: 137, interruptedBy: 'SIGTERM' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(batchProcessesLeft(pidFile)).toBe(0);
  });

  it('a leader that ends on the signal, leaving a child that ignores it: the child is killed after the grace', async () => {
    const measureDir = tempDir();
    const pidFile = join(measureDir, 'pid');
    const command = ['bash', '-c', '(trap "" TERM; exec sleep 30) & echo $$ > "$0"; wait', trackBatch(pidFile)];
    let callerGone: (signal: NodeJS.Signals) => void = () => undefined;
    const sink = () => new PassThrough().resume();
    const running = runMeasured({
      command,
      cwd: measureDir,
      env: clearedEnv(),
      measureDir,
      onLine: () => undefined,
      callerGone: new Promise((resolve) => (callerGone = resolve)),
      stopGraceMs: 300,
      passTo: { stdout: sink(), stderr: sink() },
    });
    await waitForFile(pidFile);
    await new Promise((r) => setTimeout(r, 100)); // let the child set its trap
    callerGone('SIGTERM');
    const ran = await running;
    expect(ran).toMatchObject({ signal: 'SIGTERM', interruptedBy: 'SIGTERM' });
    expect(batchProcessesLeft(pidFile)).toBe(0);
  });

  it('reads the signal from the last line the other side wrote; anything else counts as SIGTERM', () => {
    expect(signalFromSessionInput('SIGINT\n')).toBe('SIGINT');
    expect(signalFromSessionInput('SIGHUP')).toBe('SIGHUP');
    expect(signalFromSessionInput('noise\n SIGINT \n\n')).toBe('SIGINT');
    expect(signalFromSessionInput('')).toBe('SIGTERM');
    expect(signalFromSessionInput('SIGKILL\n')).toBe('SIGTERM');
    expect(signalFromSessionInput('SIGINT\nrest')).toBe('SIGTERM');
  });
});
