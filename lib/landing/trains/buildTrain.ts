// Builds a train: a chain of merge commits on the target tip, one per member, written with
// `merge-tree --write-tree` and `commit-tree` so no checkout and no index is touched.
import { commitTree, isAncestor, mergeTree, treeOf, type MergeTreeResult } from '../../git/index.js';
import type { JobRecord } from '../../store/index.js';

export interface TrainMember {
  job: JobRecord;
  /** The chain commit that added this member (its merge, or its tip for a fast-forward). */
  commit: string;
}

export interface BuiltTrain {
  kind: 'fast-forward' | 'merge';
  base: string;
  train: string;
  tree: string;
  members: TrainMember[];
  /** Conflicts with the chain built so far; the job goes back to the queue with these paths. */
  skipped: { job: JobRecord; paths: string[]; against: 'target' | 'train'; head: string }[];
  /** Tips already contained in the target: nothing to land, the job is landed as it is. */
  contained: JobRecord[];
}

function mergeMessage(job: JobRecord, trainId: string): string {
  return [
    `land: merge ${job.branch} (${job.id})`,
    '',
    job.title !== job.branch ? `${job.title}\n` : null,
    `Land-Job: ${job.id}`,
    `Land-Branch: ${job.branch}`,
    `Land-Tip: ${job.tip}`,
    `Land-Train: ${trainId}`,
  ]
    .filter((line) => line !== null)
    .join('\n');
}

/**
 * Whether `job`'s tip is already in the target. Merging a commit the chain already contains
 * changes nothing, so a merge that conflicts or changes the chain's tree says "no" without asking
 * git; only a merge that leaves the tree as it was (rare: an empty change, or a contained tip) is
 * checked with `merge-base --is-ancestor`.
 */
async function containedIn(cwd: string, base: string, chainTree: string, job: JobRecord, merged: MergeTreeResult): Promise<boolean> {
  if (merged.kind === 'conflict' || merged.tree !== chainTree) return false;
  return isAncestor(cwd, job.tip, base);
}

/**
 * Whether a lone member's tip contains the base (it lands as a fast-forward). The merge of a tip
 * that contains the base is the tip's own tree, so a merge with another tree says "no" without
 * `merge-base --is-ancestor` (the tip's tree is one line to the drain's cat-file session).
 */
async function fastForwards(cwd: string, base: string, job: JobRecord, merged: MergeTreeResult): Promise<boolean> {
  if (merged.kind !== 'clean' || merged.tree !== (await treeOf(cwd, job.tip))) return false;
  return isAncestor(cwd, base, job.tip);
}

export async function buildTrain(cwd: string, base: string, baseTree: string, jobs: readonly JobRecord[], trainId: string): Promise<BuiltTrain> {
  const built: BuiltTrain = { kind: 'merge', base, train: base, tree: baseTree, members: [], skipped: [], contained: [] };
  for (const job of jobs) {
    // The first member's merge onto the base is the one the fast-path check made (remembered).
    const merged = await mergeTree(cwd, built.train, job.tip);
    if (await containedIn(cwd, base, built.tree, job, merged)) {
      built.contained.push(job);
      continue;
    }
    // A single member whose tip already contains the target lands as a fast-forward (its tree is the merge's).
    if (jobs.length === 1 && (await fastForwards(cwd, base, job, merged))) {
      built.kind = 'fast-forward';
      built.train = job.tip;
      built.tree = merged.tree;
      built.members.push({ job, commit: job.tip });
      continue;
    }
    if (merged.kind === 'conflict') {
      // Does it conflict with the target itself, or only with members ahead of it?
      const alone = built.train === base ? merged : await mergeTree(cwd, base, job.tip);
      built.skipped.push({
        job,
        paths: alone.kind === 'conflict' ? alone.paths : merged.paths,
        against: alone.kind === 'conflict' ? 'target' : 'train',
        head: built.train,
      });
      continue;
    }
    const commit = await commitTree(cwd, merged.tree, [built.train, job.tip], mergeMessage(job, trainId));
    built.train = commit;
    built.tree = merged.tree;
    built.members.push({ job, commit });
  }
  return built;
}
