// The sentence for a job put back in the queue by `land retry` or by `land submit` of the same
// branch at the same tip: what it was, what happens next, which branch at which tip.
import { describeReopenedFrom, type ReopenedFrom } from '../queue/index.js';
import type { JobRecord } from '../store/index.js';
import { showName, short } from './output.js';

export function requeuedLine(job: JobRecord, previous: ReopenedFrom): string {
  const urgent = job.priority === 'urgent' ? ' (urgent)' : '';
  return `requeued ${job.id} (was ${describeReopenedFrom(previous)}; the next train gates it again): ${showName(job.branch)} at ${short(job.tip)}${urgent}`;
}
