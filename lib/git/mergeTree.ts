import { GitError, runGit } from './run.js';

export type MergeTreeResult = { kind: 'clean'; tree: string } | { kind: 'conflict'; tree: string; paths: string[] };

/**
 * Merges two commits in memory (`git merge-tree --write-tree`, git >= 2.38): no checkout, no index.
 * Exit 1 is a conflict, which is an outcome, not an error.
 */
export async function mergeTree(cwd: string, ours: string, theirs: string): Promise<MergeTreeResult> {
  // The merge of two commit ids is a pure function of them: remember it for this process (the
  // fast-path check and the train build ask for the same merge).
  const full = /^[0-9a-f]{40,64}$/;
  const key = full.test(ours) && full.test(theirs) ? `${cwd}\0${ours}\0${theirs}` : null;
  const known = key === null ? undefined : MEMO.get(key);
  if (known) return known;
  const merged = await mergeTreeUncached(cwd, ours, theirs);
  if (key !== null) {
    if (MEMO.size >= MEMO_LIMIT) MEMO.delete(MEMO.keys().next().value as string);
    MEMO.set(key, merged);
  }
  return merged;
}

// A pure memo of a content-addressed fact: the merge of two commits named by full id never changes.
const MEMO = new Map<string, MergeTreeResult>();
const MEMO_LIMIT = 1_000;

async function mergeTreeUncached(cwd: string, ours: string, theirs: string): Promise<MergeTreeResult> {
  const result = await runGit(cwd, ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', ours, theirs], { okCodes: [1] });
  // -z output: "<tree>\0<path>\0<path>\0" ; with --no-messages nothing follows the paths.
  const fields = result.stdout.split('\0').filter((field) => field !== '');
  const tree = fields[0] ?? '';
  // git also exits 1 when it cannot merge at all ("not something we can merge"): no tree, a failure.
  if (!/^[0-9a-f]{40,64}$/.test(tree)) throw new GitError(['merge-tree', '--write-tree', ours, theirs], result);
  if (result.code === 0) return { kind: 'clean', tree };
  const paths = [...new Set(fields.slice(1))].sort();
  return { kind: 'conflict', tree, paths };
}
