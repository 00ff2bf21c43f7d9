// The invariant checker itself: clean after a real drain, and each of LOST, DUPLICATED, UNEXPECTED
// and STUCK reported when the evidence is broken on purpose (a record or the target edited by
// hand), so a fault test that passes cannot pass because the checker looks at nothing.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs } from '../helpers/repo.js';
import { jobsDir } from '../helpers/state.js';
import { createBranches, type FaultRepo, makeFaultRepo, submitAll } from '../helpers/faultHarness.js';
import { checkInvariants, isClean, summarize, type InvariantReport } from '../helpers/invariants.js';

afterAll(cleanupTempDirs);

describe.sequential('the invariant checker', () => {
  let fault: FaultRepo;
  let ids: string[];
  const check = (phase: 'settled' | 'crashed' = 'settled'): InvariantReport =>
    checkInvariants({ dir: fault.repo.dir, target: fault.target, base: fault.base, branches: fault.branches, phase });
  const recordPath = (id: string) => join(jobsDir(fault.repo), `${id}.json`);
  /** Edits a record on disk for the length of `fn`, then puts it back. */
  const withRecord = (id: string, edit: (job: Record<string, unknown>) => void, fn: () => void) => {
    const original = readFileSync(recordPath(id), 'utf8');
    const job = JSON.parse(original);
    edit(job);
    writeFileSync(recordPath(id), JSON.stringify(job));
    try {
      fn();
    } finally {
      writeFileSync(recordPath(id), original);
    }
  };
  /** Moves the target to `commit` for the length of `fn`, then back. */
  const withTarget = (commit: string, fn: () => void) => {
    const before = fault.repo.tip('main');
    fault.repo.git('update-ref', 'refs/heads/main', commit, before);
    try {
      fn();
    } finally {
      fault.repo.git('update-ref', 'refs/heads/main', before, commit);
    }
  };
  const mergeOnMain = (tip: string, job: string) =>
    fault.repo.git('commit-tree', 'main^{tree}', '-p', 'main', '-p', tip, '-m', `land: merge by hand\n\nLand-Job: ${job}\nLand-Tip: ${tip}\n`);

  beforeAll(async () => {
    fault = makeFaultRepo({ gateSleep: 0 });
    createBranches(fault, [1, 2, 3], [2], 'i');
    ids = await submitAll(fault, ['i1', 'i2', 'i3']);
    const run = await land(fault.repo.dir, ['run']);
    if (run.code !== 0) throw new Error(run.stderr);
  }, 600_000);

  it('is clean after a real drain, and reports what landed and what failed', () => {
    const report = check();
    expect(isClean(report), summarize(report)).toBe(true);
    expect([...report.merged].sort()).toEqual([ids[0], ids[2]].sort());
    expect(report.outcomes.map((o) => [o.name, o.state, o.reason])).toEqual([
      ['i1', 'landed', null],
      ['i2', 'failed', 'gate'],
      ['i3', 'landed', null],
    ]);
  });

  it('UNEXPECTED: a commit on the target no job landed; a culprit merged; a landed record whose train is not in the target', () => {
    withTarget(fault.repo.git('commit-tree', 'main^{tree}', '-p', 'main', '-m', 'pushed around the queue'), () => {
      expect(check().unexpected.join('\n')).toMatch(/is no job's landing/);
    });
    const culprit = fault.branches[1];
    withTarget(mergeOnMain(culprit?.tip ?? '', ids[1] ?? ''), () => {
      const report = check();
      expect(report.unexpected.join('\n')).toMatch(/culprit i2 landed/);
      expect(report.unexpected.join('\n')).toMatch(/record says failed/);
    });
    withRecord(
      ids[0] ?? '',
      (job) => {
        job.train = fault.base;
      },
      () => expect(check().unexpected.join('\n')).toMatch(/recorded landed but its train .* is not in main/),
    );
  });

  it('DUPLICATED: a job merged twice; two landed records for one tip', () => {
    const good = fault.branches[0];
    withTarget(mergeOnMain(good?.tip ?? '', ids[0] ?? ''), () => {
      const found = check().duplicated.join('\n');
      expect(found).toMatch(new RegExp(`${ids[0]} is merged into main 2 times`));
      expect(found).toMatch(/already in main/);
    });
    const copy = recordPath('j-20991231-0001');
    writeFileSync(copy, readFileSync(recordPath(ids[0] ?? ''), 'utf8').replaceAll(ids[0] ?? '', 'j-20991231-0001'));
    try {
      expect(check().duplicated.join('\n')).toMatch(/2 records landed for tip/);
    } finally {
      rmSync(copy);
    }
  });

  it('LOST: a job left queued, failed without a reason, or with no record; STUCK: in_progress with no drainer', () => {
    withRecord(
      ids[2] ?? '',
      (job) => {
        job.state = 'queued';
      },
      () => expect(check().lost.join('\n')).toMatch(/i3: .* is queued after the drain/),
    );
    withRecord(
      ids[1] ?? '',
      (job) => {
        job.reason = null;
      },
      () => expect(check().lost.join('\n')).toMatch(/i2: .* failed without a reason/),
    );
    const original = readFileSync(recordPath(ids[1] ?? ''), 'utf8');
    rmSync(recordPath(ids[1] ?? ''));
    try {
      expect(check().lost).toEqual(['i2: no job record']);
    } finally {
      writeFileSync(recordPath(ids[1] ?? ''), original);
    }
    withRecord(
      ids[0] ?? '',
      (job) => {
        job.state = 'in_progress';
      },
      () => {
        expect(check().stuck.join('\n')).toMatch(/\(i1\) is in_progress and no drainer is alive/);
        // Right after a kill, a record the dead drainer left in_progress may claim its merge.
        expect(isClean(check('crashed')), summarize(check('crashed'))).toBe(true);
      },
    );
    expect(isClean(check())).toBe(true);
  });
});
