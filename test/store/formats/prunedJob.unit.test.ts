// What `land gc` keeps of a pruned job (lib/store/formats/prunedJob.ts) and how the history reads
// it next to the records (lib/stats/history.ts withPruned): pure, no git.
import { describe, expect, it } from 'vitest';
import { withPruned } from '../../../lib/stats/history.js';
import { newJobRecord } from '../../../lib/queue/index.js';
import {
  jobShapeProblem,
  PRUNED_MESSAGE_MAX_BYTES,
  prunedJobOf,
  prunedJobSchema,
  prunedJobsOfMessage,
  prunedMessage,
  prunedMessages,
  type JobRecord,
} from '../../../lib/store/index.js';
import { METRICS_MESSAGE_MAX_BYTES } from '../../../lib/store/formats/published.js';

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

  it('splits a long prune over several messages, each within the cap the readers apply, every job once', () => {
    const jobs = Array.from({ length: 300 }, (_, i) => prunedJobOf(record(i % 10)));
    const messages = prunedMessages(jobs, 20_000);
    expect(messages.length).toBeGreaterThan(1);
    for (const message of messages) expect(Buffer.byteLength(message)).toBeLessThanOrEqual(20_000);
    expect(messages.flatMap((message) => prunedJobsOfMessage(message).jobs)).toHaveLength(300);
    expect(prunedMessages(jobs.slice(0, 2))).toEqual([prunedMessage(jobs.slice(0, 2))]); // a short one: one commit, as before
    expect(PRUNED_MESSAGE_MAX_BYTES).toBe(METRICS_MESSAGE_MAX_BYTES);
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
