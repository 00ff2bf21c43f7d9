// Reads a commit and one file of it with one git process (`git cat-file --batch`, a conversation
// over stdin): the ref is resolved once, and the file is asked of the commit id it resolved to,
// so the three answers (commit, tree, file) are about the same commit even if the ref moves.
// It replaces `rev-parse` + `rev-parse ^{tree}` + `cat-file blob`: a drain reads the target's tip,
// tree and policy this way for every train.
import { BatchReader, type BatchObject } from './batchReader.js';
import { askSession } from './catFileSession.js';
import { rememberTree } from './revParse.js';
import { GitError, runGit, startGit } from './run.js';

export interface CommitFile {
  commit: string;
  tree: string;
  /** The file at that commit, null when there is none (or the path is not a file). */
  file: { oid: string; text: string } | null;
}

/** The commit `rev` names, its tree, and the file `path` in it; null when `rev` names no commit. */
export async function readCommitFile(cwd: string, rev: string, path: string): Promise<CommitFile | null> {
  if (/[\n\r]/.test(rev) || /[\n\r]/.test(path)) throw new Error(`a name with a line break cannot be read: ${JSON.stringify(rev)}`);
  const asked = await askSession(cwd, async (line) => commitFileOf(await line(`${rev}^{commit}`), (commit) => line(`${commit}:${path}`)));
  if (asked !== undefined) return asked;
  const args = ['cat-file', '--batch'];
  const talk = startGit(cwd, args);
  talk.done.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
  const reader = new BatchReader(talk.stdout);
  try {
    talk.stdin.write(`${rev}^{commit}\n`);
    const commit = await reader.next();
    const tree = commit?.type === 'commit' ? /^tree ([0-9a-f]{40,64})\n/.exec(commit.content.toString('utf8'))?.[1] : undefined;
    if (!commit || !tree) {
      talk.stdin.end();
      await talk.done;
      return null;
    }
    rememberTree(commit.oid, tree);
    talk.stdin.end(`${commit.oid}:${path}\n`);
    const file = await reader.next();
    await talk.done;
    return { commit: commit.oid, tree, file: file?.type === 'blob' ? { oid: file.oid, text: file.content.toString('utf8') } : null };
  } catch (error) {
    talk.stdin.destroy();
    const result = await talk.done.catch((failed: unknown) => failed);
    throw result instanceof GitError ? result : error;
  }
}

/** readCommitFile's answer from a session: the commit, its tree, then the file asked of the commit's id. */
async function commitFileOf(commit: BatchObject | null, fileOf: (commit: string) => Promise<BatchObject | null>): Promise<CommitFile | null> {
  const tree = commit?.type === 'commit' ? /^tree ([0-9a-f]{40,64})\n/.exec(commit.content.toString('utf8'))?.[1] : undefined;
  if (!commit || !tree) return null;
  rememberTree(commit.oid, tree);
  const file = await fileOf(commit.oid);
  return { commit: commit.oid, tree, file: file?.type === 'blob' ? { oid: file.oid, text: file.content.toString('utf8') } : null };
}

/**
 * The blobs `names` name (`<commit>:<path>` or an object id), read with one `cat-file --batch`.
 * A name that names no blob maps to null.
 */
export async function readBlobs(cwd: string, names: readonly string[]): Promise<Map<string, string | null>> {
  for (const name of names) if (/[\n\r]/.test(name)) throw new Error(`a name with a line break cannot be read: ${JSON.stringify(name)}`);
  return readBatch(cwd, names, (object) => (object?.type === 'blob' ? object.content.toString('utf8') : null));
}

/** Each object `names` name, read with one `cat-file --batch` and turned into a value by `pick`. */
async function readBatch<T>(cwd: string, names: readonly string[], pick: (object: BatchObject | null) => T): Promise<Map<string, T>> {
  const found = new Map<string, T>();
  if (!names.length) return found;
  const talk = startGit(cwd, ['cat-file', '--batch']);
  talk.done.catch(() => undefined);
  const reader = new BatchReader(talk.stdout);
  try {
    talk.stdin.end(names.map((name) => `${name}\n`).join(''));
    for (const name of names) found.set(name, pick(await reader.next()));
    await talk.done;
    return found;
  } catch (error) {
    talk.stdin.destroy();
    const result = await talk.done.catch((failed: unknown) => failed);
    throw result instanceof GitError ? result : error;
  }
}

/** An object's type and size as `cat-file --batch-check` says them, without reading it. */
export interface ObjectInfo {
  oid: string;
  type: string;
  size: number;
}

/**
 * The type and size of each object `names` name (`<commit>:<path>` or an object id), with one
 * `cat-file --batch-check`: a reader checks these before it reads an object someone else wrote.
 * A name that names nothing maps to null.
 */
export async function objectInfo(cwd: string, names: readonly string[]): Promise<Map<string, ObjectInfo | null>> {
  const found = new Map<string, ObjectInfo | null>();
  if (!names.length) return found;
  for (const name of names) if (/[\n\r]/.test(name)) throw new Error(`a name with a line break cannot be read: ${JSON.stringify(name)}`);
  const out = await runGit(cwd, ['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], {
    input: names.map((name) => `${name}\n`).join(''),
  });
  const lines = out.stdout.split('\n');
  names.forEach((name, i) => {
    const [oid = '', type = '', size = ''] = (lines[i] ?? '').split(' ');
    const known = /^[0-9a-f]{40,64}$/.test(oid) && /^\d+$/.test(size);
    found.set(name, known ? { oid, type, size: Number(size) } : null);
  });
  return found;
}

/** The message of each commit in `oids` (its raw text after the headers), read with one `cat-file --batch`; null for a name that is no commit. */
export async function readCommitMessages(cwd: string, oids: readonly string[]): Promise<Map<string, string | null>> {
  for (const oid of oids) if (!/^[0-9a-f]{40,64}$/.test(oid)) throw new Error(`not an object id: ${JSON.stringify(oid)}`);
  return readBatch(cwd, oids, (object) => {
    if (object?.type !== 'commit') return null;
    const text = object.content.toString('utf8');
    const at = text.indexOf('\n\n');
    return at < 0 ? '' : text.slice(at + 2);
  });
}
