import { askSession } from './catFileSession.js';
import { git } from './run.js';

/** The object id `rev` names, or null when it names nothing. */
export async function revParse(cwd: string, rev: string): Promise<string | null> {
  const out = await git(cwd, ['rev-parse', '--verify', '--quiet', '--end-of-options', rev], { okCodes: [1] });
  return out === '' ? null : out;
}

export async function revParseOrThrow(cwd: string, rev: string): Promise<string> {
  const id = await revParse(cwd, rev);
  if (id === null) throw new Error(`git rev-parse: ${rev} does not name an object`);
  return id;
}

/** The tree id of a commit. */
export async function treeOf(cwd: string, commit: string): Promise<string> {
  // A commit's tree never changes: asked by id, it is remembered (readCommitFile tells it too).
  const known = FULL_ID.test(commit) ? TREES.get(commit) : undefined;
  if (known) return known;
  const tree = (await askedId(cwd, `${commit}^{tree}`)) ?? (await revParseOrThrow(cwd, `${commit}^{tree}`));
  rememberTree(commit, tree);
  return tree;
}

const FULL_ID = /^[0-9a-f]{40,64}$/;
// A pure memo of a content-addressed fact: a commit named by full id has one tree, forever.
const TREES = new Map<string, string>();
const TREES_LIMIT = 1_000;

/** Notes that commit `commit` (a full id) has tree `tree`, for treeOf. */
export function rememberTree(commit: string, tree: string): void {
  if (!FULL_ID.test(commit)) return;
  if (TREES.size >= TREES_LIMIT) TREES.delete(TREES.keys().next().value as string);
  TREES.set(commit, tree);
}

export function branchRef(branch: string): string {
  return `refs/heads/${branch}`;
}

/** The commit a ref points at, or null when there is no such ref. */
export async function refTip(cwd: string, ref: string): Promise<string | null> {
  const asked = await askSession(cwd, async (line) => (await line(`${ref}^{commit}`))?.oid ?? null);
  return asked !== undefined ? asked : revParse(cwd, `${ref}^{commit}`);
}

/** The id `rev` names, asked of the drain's cat-file session; null when it names nothing or no session is open. */
async function askedId(cwd: string, rev: string): Promise<string | null> {
  return (await askSession(cwd, async (line) => (await line(rev))?.oid ?? null)) ?? null;
}

/** The tip of a local branch, or null when the branch does not exist. */
export function branchTip(cwd: string, branch: string): Promise<string | null> {
  return refTip(cwd, branchRef(branch));
}
