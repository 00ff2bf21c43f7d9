// `land run` with a gate that is a batch stage (run through `land batch`): each exit status of the
// wrapper maps onto what happens to the train.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs, tempDir } from '../../helpers/repo.js';
import { jobsById, makeQueueRepo, submitBranches } from '../../helpers/queue.js';
import { FAIL_AT_ONCE } from '../../helpers/state.js';
import { FAKE_BATCH } from '../../helpers/batchWrapper.js';
import { runDrain } from '../../helpers/drainHarness.js';

afterAll(cleanupTempDirs);

/**
 * `status` is the batch's exit status; with `onChange` it is that status only on a tree holding
 * file-b1.txt (the first submitted job's change), else 0: main itself passes, so a job failed
 * alone is not taken for a red target.
 */
function batchRepo(status: number, opts: { retries?: number; onChange?: boolean } = {}) {
  const scratch = tempDir('land-stage-');
  const marker = join(scratch, 'marker');
  const measure = join(scratch, 'measure');
  const run = opts.onChange
    ? ['bash', '-c', `if [ -e file-b1.txt ]; then s=${status}; else s=0; fi; exec bash "$0" "$1" "$s"`, FAKE_BATCH, marker]
    : ['bash', FAKE_BATCH, marker, String(status)];
  const repo = makeQueueRepo({
    policy: {
      gates: [{ name: 'model', run, batch: { job: 'nightly', measureDir: measure } }],
      retries: { infra: opts.retries ?? 1 },
      ...FAIL_AT_ONCE,
    },
  });
  return { repo, scratch, marker, measure, ledger: join(scratch, 'ledger') };
}

const onLane = (ledger: string, extra: Record<string, string | undefined> = {}) => ({
  LAND_ON_LANE: '1',
  LAND_LEDGER_DIR: ledger,
  LAND_LANE_SSH: undefined,
  LAND_PROVIDER: undefined,
  ...extra,
});

describe('a batch stage as a gate', () => {
  it('exit 0: PASS, the job lands and land show prints its ledger line', async () => {
    const { repo, marker, ledger, measure } = batchRepo(0);
    const [id] = await submitBranches(repo, 1);
    const run = await land(repo.dir, ['run', '--json'], { env: onLane(ledger) });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
    const lines = readFileSync(join(ledger, 'nightly.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ job: 'nightly', status: 0, counts: { scored: 5, best: 0.875 } });
    expect(existsSync(join(measure, 'batch.log'))).toBe(true);
    const job = (await jobsById(repo)).get(id as string);
    expect(job.state).toBe('landed');
    expect(job.ledger).toMatchObject({ model: { job: 'nightly', status: 0 } });
    expect((await land(repo.dir, ['show', id as string])).stdout).toMatch(/ledger\s+model: ledger line of nightly, exit 0/);
  });
});

// The other exit statuses are variants of one decision (how the gate's verdict reads a batch stage's
// status): the real drain in this process (test/helpers/drainHarness.ts), its environment set as
// the CLI's would be; a stop of null is `land run`'s exit 0.
describe('a batch stage as a gate, the drain in process', () => {
  it('exit 2 (provider refused): the train fails without bisection and nothing runs', async () => {
    const { repo, marker, ledger } = batchRepo(0);
    const ids = await submitBranches(repo, 2);
    const run = await runDrain(repo.dir, { env: onLane(ledger, { LAND_PROVIDER: 'anthropic' }) });
    expect(run.summary.stopped).toBeNull();
    expect(run.events.some((e) => e.type === 'bisected')).toBe(false);
    const jobs = await jobsById(repo);
    for (const id of ids) expect(jobs.get(id)).toMatchObject({ state: 'failed', reason: 'policy_refused' });
    expect(existsSync(marker)).toBe(false);
    expect(repo.gateRuns()).toBe(0);
  });

  it('exit 3 (no lane): members requeued without bisection, nothing run, then failed as infra', async () => {
    const { repo, marker, ledger } = batchRepo(0);
    const ids = await submitBranches(repo, 2);
    const run = await runDrain(repo.dir, { env: { LAND_ON_LANE: undefined, LAND_LANE_SSH: 'no-such-lane.invalid', LAND_LEDGER_DIR: ledger } });
    expect(run.summary.stopped).toBeNull();
    const { events } = run;
    expect(events.some((e) => e.type === 'bisected')).toBe(false);
    expect(events.find((e) => e.type === 'requeued')?.reason).toMatch(/no_lane/);
    const jobs = await jobsById(repo);
    for (const id of ids) expect(jobs.get(id)).toMatchObject({ state: 'failed', reason: 'infra' });
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(ledger)).toBe(false);
  });

  it('exit 4 (no ledger store): requeued as infrastructure, nothing spent', async () => {
    const { repo, marker } = batchRepo(0, { retries: 0 });
    const [id] = await submitBranches(repo, 1);
    const run = await runDrain(repo.dir, { env: { LAND_ON_LANE: '1', LAND_LEDGER_DIR: undefined, LAND_LANE_SHARED: undefined } });
    expect(run.summary.stopped).toBeNull();
    const job = (await jobsById(repo)).get(id as string);
    expect(job).toMatchObject({ state: 'failed', reason: 'infra', error: { code: 'no_ledger_store' } });
    expect(existsSync(marker)).toBe(false);
  });

  it('exit 5 (no ledger line written): FAIL, with the batch output kept in the measure dir', async () => {
    const { repo, scratch, marker, measure, ledger } = batchRepo(0);
    // A first landing with a working ledger store: main's tree has a PASS on record, so the job
    // below, failed alone, is not taken for a red target (a missing ledger line on main too).
    await submitBranches(repo, 1, [], 'first');
    expect((await runDrain(repo.dir, { env: onLane(ledger) })).summary.stopped).toBeNull();
    const blocker = join(scratch, 'not-a-dir');
    writeFileSync(blocker, 'a regular file\n');
    const [id] = await submitBranches(repo, 1);
    const run = await runDrain(repo.dir, { env: onLane(join(blocker, 'ledger')) });
    expect(run.summary.stopped).toBeNull();
    const job = (await jobsById(repo)).get(id as string);
    expect(job).toMatchObject({ state: 'failed', reason: 'no_ledger_line' });
    expect(existsSync(marker)).toBe(true);
    expect(readFileSync(join(measure, 'batch.log'), 'utf8')).toMatch(/scored 5/);
  });

  it('any other status is an ordinary FAIL', async () => {
    const { repo, ledger } = batchRepo(7, { onChange: true });
    const [id] = await submitBranches(repo, 1);
    const run = await runDrain(repo.dir, { env: onLane(ledger) });
    expect(run.summary.stopped).toBeNull();
    const job = (await jobsById(repo)).get(id as string);
    expect(job).toMatchObject({ state: 'failed', reason: 'gate' });
    expect(job.error?.message).toMatch(/gate model: exit 7/);
    // The failed batch still left its ledger line; then main itself was gated once (exit 0).
    const lines = readFileSync(join(ledger, 'nightly.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.status)).toEqual([7, 0]);
  });
});
