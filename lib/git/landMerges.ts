import { runGit } from './run.js';

/** A commit on a first-parent line that names jobs in `Land-Job:` trailers (a train's merge of a member). */
export interface LandMerge {
  commit: string;
  /** Its parents, first parent first: a train's merge has the chain before it, then the member's tip. */
  parents: string[];
  /** The values of its `Land-Job` trailers. */
  jobs: string[];
}

const RECORD = '\x1e';
const FIELD = '\x1f';

/**
 * The commits on the first-parent lines of `from` (commit ids), down to `since` (excluded with
 * all its ancestors; null walks the whole lines), that carry a `Land-Job` trailer: one
 * `git log --first-parent`. A train's chain is built first parent on first parent from its base,
 * each member's merge naming the member (lib/landing/trains/buildTrain.ts), so the merge of a
 * member of train T is on T's first-parent line.
 */
export async function landMergesSince(cwd: string, from: readonly string[], since: string | null): Promise<LandMerge[]> {
  if (!from.length) return [];
  const format = `--format=${RECORD}%H %P${FIELD}%(trailers:key=Land-Job,valueonly,separator=%x1f)`;
  const args = ['log', '--first-parent', '--no-show-signature', format, '--end-of-options', ...from, ...(since ? [`^${since}`] : []), '--'];
  const out = await runGit(cwd, args);
  const merges: LandMerge[] = [];
  for (const record of out.stdout.split(RECORD)) {
    const [ids = '', ...trailers] = record.replace(/\n+$/, '').split(FIELD);
    const jobs = trailers.map((value) => value.trim()).filter((value) => value !== '');
    const [commit, ...parents] = ids.trim().split(' ');
    if (commit && jobs.length) merges.push({ commit, parents, jobs });
  }
  return merges;
}
