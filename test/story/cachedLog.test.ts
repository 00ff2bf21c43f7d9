// `land log` of a job failed from the verdict cache: its train ran no gate (its log holds land's
// header lines only), so the log of the train that judged the same tree follows it, named.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs } from '../helpers/repo.js';
import { makeQueueRepo, type QueueRepo } from '../helpers/queue.js';
import { FAIL_AT_ONCE } from '../helpers/state.js';
import { journal, readJobFile } from '../helpers/state.js';
import { runDrain, submitInProcess } from '../helpers/drainHarness.js';
import { appendJournal, editJob } from '../helpers/reconcile.js';

afterAll(cleanupTempDirs);

describe('land log of a job failed from a cached verdict', () => {
  let repo: QueueRepo;
  let first: string;
  let second: string;

  beforeAll(async () => {
    repo = makeQueueRepo({ policy: FAIL_AT_ONCE });
    // Two branches with the same change: the second's lone train has the first's tree.
    repo.branch('first', { 'culprit-1': 'same\n' });
    repo.branch('second', { 'culprit-1': 'same\n' });
    [first] = (await submitInProcess(repo.dir, ['first'])) as [string];
    await runDrain(repo.dir);
    [second] = (await submitInProcess(repo.dir, ['second'])) as [string];
    await runDrain(repo.dir);
    // No gate ran with the second job (the other line is the target's own check after a lone failure).
    expect(repo.gateLines().filter((line) => line.includes(second))).toEqual([]);
    expect(readJobFile(repo, second)).toMatchObject({ state: 'failed', gate: { mode: 'cached' } });
  });

  it("prints the train's own lines, then the judging train's log under a line naming it (--json: two objects)", async () => {
    const judgingTrain = journal(repo).find((e) => e.job === first && e.event === 'train_started')?.detail.train;
    expect(judgingTrain).toEqual(expect.any(String));
    const judgingLog = readFileSync(readJobFile(repo, first).gateLog as string, 'utf8');
    expect(judgingLog).toContain('found culprit-1: failing');

    const log = await land(repo.dir, ['log', second]);
    expect(log.code, log.stderr).toBe(0);
    const [own, rest] = log.stdout.split(/^== the verdict of train .+ came from the verdict cache: .+\n/m);
    expect(rest, log.stdout).toBe(judgingLog);
    expect(own).not.toContain('found culprit-1');
    expect(log.stdout).toContain(`train ${judgingTrain} judged the same tree; its log (`);

    const json = await land(repo.dir, ['log', second, '--json']);
    const [mine, theirs] = json.lines();
    expect(mine).toMatchObject({ job: second });
    expect(theirs).toMatchObject({ job: second, train: judgingTrain, judged: mine.train, text: judgingLog });

    // A job whose gates ran prints its own log alone.
    const plain = await land(repo.dir, ['log', first]);
    expect(plain.stdout).toBe(judgingLog);
  });

  it('a judging train (cachedFrom) or a train_started line naming no train id is ignored: the own log prints', async () => {
    const record = readJobFile(repo, second);
    const own = (await land(repo.dir, ['log', second])).stdout.split(/^== the verdict of train /m)[0];
    editJob(repo, second, { gate: { ...record.gate, cachedFrom: '../../../etc/passwd' } });
    // So is a train_started line naming no train id (the journal of a remote queue is anyone's to push).
    const started = journal(repo).find((e) => e.job === second && e.event === 'train_started');
    appendJournal(repo, { ...started, detail: { ...started?.detail, train: '../x' } });
    try {
      const log = await land(repo.dir, ['log', second]);
      expect(log.code, log.stderr).toBe(0);
      expect(log.stdout).toBe(own);
    } finally {
      editJob(repo, second, { gate: record.gate });
    }
  });
});
