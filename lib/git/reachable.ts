import { runGit } from './run.js';

/**
 * Which of `candidates` are ancestors of `tip` (a commit is its own ancestor), in three git
 * processes whatever the number of candidates: `cat-file --batch-check` drops ids that are not
 * commits here (a pruned train), `merge-base --octopus` finds B, an ancestor of the tip and of
 * every candidate, and `rev-list <tip> ^B` lists what the tip holds beyond B. A candidate is in
 * the tip's history exactly when it is in that list or is B itself (B is an ancestor of each
 * candidate, so a candidate that is an ancestor of B is B). The walk stops at B, so its length is
 * the history since the oldest candidate, not the whole history.
 */
export async function reachableFrom(cwd: string, tip: string, candidates: readonly string[]): Promise<Set<string>> {
  const unique = [...new Set(candidates)];
  const found = new Set<string>();
  if (!unique.length) return found;
  const check = await runGit(cwd, ['cat-file', '--batch-check=%(objectname) %(objecttype)'], { input: `${unique.join('\n')}\n` });
  const commits = check.stdout
    .split('\n')
    .map((line) => line.split(' '))
    .filter(([id, type]) => type === 'commit' && id !== undefined && unique.includes(id))
    .map(([id]) => id as string);
  if (!commits.length) return found;
  const mergeBase = await runGit(cwd, ['merge-base', '--octopus', tip, ...commits], { okCodes: [1] });
  const base = mergeBase.code === 0 ? (mergeBase.stdout.trim().split('\n')[0] ?? '') : '';
  const walk = await runGit(cwd, ['rev-list', tip, ...(base ? [`^${base}`] : []), '--']);
  const history = new Set(walk.stdout.split('\n'));
  for (const commit of commits) if (commit === base || history.has(commit)) found.add(commit);
  return found;
}
