// `land status` estimates when each queued job lands: trains ahead × the median gated train,
// from metrics.jsonl. Before any train has run its gates it says there is no history yet.
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo, type TestRepo } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

async function submit(repo: TestRepo, branches: string[]): Promise<void> {
  for (const branch of branches) repo.branch(branch, { [`${branch}.txt`]: `${branch}\n` });
  const result = await land(repo.dir, ['submit', ...branches]);
  expect(result.code, result.stderr).toBe(0);
}

const rowsOf = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => /^\d+\s/.test(line))
    .map((line) => line.split(/\s+/));

describe('land status: estimated time to land', () => {
  it('says "no history yet" before any train ran its gates, then estimates from the trains that did', async () => {
    // batch.max 1: one job per train, so position p lands with the p-th train.
    const repo = makeRepo({ policy: { target: 'main', gates: [{ name: 'test', run: ['sh', '-c', 'sleep 1'] }], batch: { max: 1 } } });
    await submit(repo, ['first', 'second']);

    const before = await land(repo.dir, ['status']);
    expect(before.code, before.stderr).toBe(0);
    const header = before.stdout.split('\n')[1] as string;
    expect(header).toMatch(/^#\s+id\s+state\s+branch\s+tip\s+age\s+eta\s+note$/);
    expect(rowsOf(before.stdout).map((cells) => cells[6])).toEqual(['?', '?']);
    expect(before.stdout).toMatch(/^eta: no history yet/m);

    const beforeJson = (await land(repo.dir, ['status', '--json'])).json();
    expect(beforeJson.jobs.map((job: { eta: unknown }) => job.eta)).toEqual([null, null]);
    expect(beforeJson.estimate).toMatchObject({
      medianTrainSeconds: null,
      trainsMeasured: 0,
      window: 1,
      runningTrain: false,
      reason: expect.stringMatching(/^no history yet/),
    });

    const run = await land(repo.dir, ['run']);
    expect(run.code, run.stderr).toBe(0);
    await submit(repo, ['third', 'fourth', 'fifth']);

    const json = (await land(repo.dir, ['status', '--json'])).json();
    const median = json.estimate.medianTrainSeconds as number;
    expect(median).toBeGreaterThanOrEqual(1); // each train slept one second in its gate
    expect(json.estimate).toMatchObject({ trainsMeasured: 2, window: 1, runningTrain: false, reason: null });
    expect(json.jobs.map((job: { branch: string; position: number; eta: number }) => [job.branch, job.position, job.eta])).toEqual([
      ['third', 1, Math.round(median)],
      ['fourth', 2, Math.round(2 * median)],
      ['fifth', 3, Math.round(3 * median)],
    ]);

    const table = await land(repo.dir, ['status']);
    expect(table.code, table.stderr).toBe(0);
    const etas = rowsOf(table.stdout).map((cells) => cells[6]);
    expect(etas).toHaveLength(3);
    for (const eta of etas) expect(eta).toMatch(/^~\d+(s|m)$/);
    expect(table.stdout).not.toContain('no history yet');
    expect(table.stdout).toMatch(/^eta: ~\d+s per train \(the median gate time of the last 2 gated train\(s\)\), window 1$/m);
  });
});
