// What git says about a page's claims, in at most four git processes whatever the page's size: the
// ancestry query (lib/git/reachable.ts) for the records' trains, the claimed tips and the landed
// rows' commits; then, for the claimed merge landings, one walk of their trains' first-parent lines
// back to the query's common ancestor, for the merges that name the page's jobs.
import { ancestryOf, landMergesSince } from '../git/index.js';
import type { JobRecord } from '../store/index.js';
import { candidateCommits, mergedTipsByJob, trainsToWalk } from './evidence.js';
import type { GitEvidence, TrainRowLite } from './types.js';

export async function gitEvidence(cwd: string, tip: string, jobs: readonly JobRecord[], rows: Iterable<readonly TrainRowLite[]> = []): Promise<GitEvidence> {
  const { found: inTarget, base } = await ancestryOf(cwd, tip, candidateCommits(jobs, rows));
  // A merge made on top of a claimed tip is never an ancestor of B: the walk can stop there.
  const merges = await landMergesSince(cwd, trainsToWalk(jobs, inTarget), base);
  return {
    inTarget,
    landMerges: mergedTipsByJob(
      merges,
      jobs.map((job) => job.id),
    ),
  };
}
