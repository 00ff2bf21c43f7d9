import { runGit } from './run.js';

export interface Ancestry {
  /** The candidates that are ancestors of the tip. */
  found: Set<string>;
  /**
   * B: a common ancestor of the tip and of every candidate that is a commit here (null when they
   * share none, or no candidate is a commit). No descendant of a candidate is an ancestor of B, so
   * a walk from the tip that stops at B (`^B`) sees every commit made on top of a candidate.
   */
  base: string | null;
}

/**
 * Which of `candidates` are ancestors of `tip` (a commit is its own ancestor), in three git
 * processes whatever the number of candidates: `cat-file --batch-check` drops ids that are not
 * commits here (a pruned train), `merge-base --octopus` finds B, an ancestor of the tip and of
 * every candidate, and `rev-list <tip> ^B` lists what the tip holds beyond B. A candidate is in
 * the tip's history exactly when it is in that list or is B itself (B is an ancestor of each
 * candidate, so a candidate that is an ancestor of B is B). The walk stops at B, so its length is
 * the history since the oldest candidate, not the whole history.
 */
export async function ancestryOf(cwd: string, tip: string, candidates: readonly string[]): Promise<Ancestry> {
  const unique = [...new Set(candidates)];
  const found = new Set<string>();
  if (!unique.length) return { found, base: null };
  const check = await runGit(cwd, ['cat-file', '--batch-check=%(objectname) %(objecttype)'], { input: `${unique.join('\n')}\n` });
  const commits = check.stdout
    .split('\n')
    .map((line) => line.split(' '))
    .filter(([id, type]) => type === 'commit' && id !== undefined && unique.includes(id))
    .map(([id]) => id as string);
  if (!commits.length) return { found, base: null };
  const mergeBase = await runGit(cwd, ['merge-base', '--octopus', tip, ...commits], { okCodes: [1] });
  const base = mergeBase.code === 0 ? (mergeBase.stdout.trim().split('\n')[0] ?? '') : '';
  const walk = await runGit(cwd, ['rev-list', tip, ...(base ? [`^${base}`] : []), '--']);
  const history = new Set(walk.stdout.split('\n'));
  for (const commit of commits) if (commit === base || history.has(commit)) found.add(commit);
  return { found, base: base || null };
}

/** Which of `candidates` are ancestors of `tip` (ancestryOf without its B). */
export async function reachableFrom(cwd: string, tip: string, candidates: readonly string[]): Promise<Set<string>> {
  return (await ancestryOf(cwd, tip, candidates)).found;
}
