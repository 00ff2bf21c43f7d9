// What `land gc` keeps of a pruned job (lib/store/formats/prunedJob.ts) and how the history reads
// it next to the records (lib/stats/history.ts withPruned): pure, no git.
import { describe, expect, it } from 'vitest';
import { withPruned } from '../../../lib/stats/history.js';
import { newJobRecord } from '../../../lib/queue/index.js';
import { jobShapeProblem, prunedJobOf, prunedJobSchema, prunedJobsOfMessage, prunedMessage, type JobRecord } from '../../../lib/store/index.js';

const record = (n: number, state: JobRecord['state'] = 'landed'): JobRecord => ({
  ...newJobRecord({ id: `j-20261202-000${n}`, branch: `b${n}`, tip: 'a'.repeat(40), title: `b${n}`, submitter: 'ann@example.com', urgent: false }),
  state,
  gateLogTail: ['a long excerpt'],
});

describe('what land gc keeps of a pruned job', () => {
  it('keeps the fields the counting readers read, in the schema, and not the bulky ones', () => {
    const kept = prunedJobOf(record(1));
    expect(prunedJobSchema.safeParse(kept).success).toBe(true);
    expect(jobShapeProblem(kept)).toBeNull();
    expect(kept).not.toHaveProperty('gateLogTail');
    expect(kept).not.toHaveProperty('tip');
  });

  it('reads back the jobs of a commit message, skipping lines that are not a job', () => {
    const message = `${prunedMessage([prunedJobOf(record(1)), prunedJobOf(record(2, 'failed'))])}not json\n{"id":1}\n`;
    const read = prunedJobsOfMessage(message);
    expect(read.jobs.map((job) => job.id)).toEqual(['j-20261202-0001', 'j-20261202-0002']);
    expect(read.bad).toBe(2);
    expect(message.split('\n')[0]).toBe('land: 2 finished jobs pruned by land gc');
  });

  it('counts a job once: its record wins, and a job two gcs kept counts once', () => {
    const live = [record(1, 'queued')];
    const pruned = [record(1), record(2), { ...record(2), state: 'failed' as const }];
    expect(withPruned(live, pruned).map((job) => [job.id, job.state])).toEqual([
      ['j-20261202-0001', 'queued'],
      ['j-20261202-0002', 'failed'],
    ]);
  });
});
