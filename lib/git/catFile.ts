// Reads a commit and one file of it with one git process (`git cat-file --batch`, a conversation
// over stdin): the ref is resolved once, and the file is asked of the commit id it resolved to,
// so the three answers (commit, tree, file) are about the same commit even if the ref moves.
// It replaces `rev-parse` + `rev-parse ^{tree}` + `cat-file blob`: a drain reads the target's tip,
// tree and policy this way for every train.
import type { Readable } from 'node:stream';
import { rememberTree } from './revParse.js';
import { GitError, startGit } from './run.js';

/** One object as `cat-file --batch` prints it; null for `<name> missing` (or ambiguous). */
interface BatchObject {
  oid: string;
  type: string;
  content: Buffer;
}

/** Reads `cat-file --batch` answers off a stream, one at a time. */
class BatchReader {
  private buffer = Buffer.alloc(0);
  private ended = false;
  private wake: (() => void) | null = null;

  constructor(stream: Readable) {
    stream.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.wake?.();
    });
    stream.on('close', () => {
      this.ended = true;
      this.wake?.();
    });
  }

  private async need(bytes: () => number | null): Promise<number> {
    for (;;) {
      const n = bytes();
      if (n !== null) return n;
      if (this.ended) throw new Error('git cat-file --batch ended before its answer');
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }

  async next(): Promise<BatchObject | null> {
    const eol = await this.need(() => {
      const at = this.buffer.indexOf(0x0a);
      return at < 0 ? null : at;
    });
    const header = this.buffer.subarray(0, eol).toString('utf8');
    const [oid = '', type = '', size = ''] = header.split(' ');
    if (!/^[0-9a-f]{40,64}$/.test(oid) || !/^\d+$/.test(size)) {
      this.buffer = this.buffer.subarray(eol + 1);
      return null; // "<name> missing", "<name> ambiguous"
    }
    const end = eol + 1 + Number(size);
    await this.need(() => (this.buffer.length > end ? end : null)); // the content, then a newline
    const content = this.buffer.subarray(eol + 1, end);
    this.buffer = this.buffer.subarray(end + 1);
    return { oid, type, content };
  }
}

export interface CommitFile {
  commit: string;
  tree: string;
  /** The file at that commit, null when there is none (or the path is not a file). */
  file: { oid: string; text: string } | null;
}

/** The commit `rev` names, its tree, and the file `path` in it; null when `rev` names no commit. */
export async function readCommitFile(cwd: string, rev: string, path: string): Promise<CommitFile | null> {
  if (/[\n\r]/.test(rev) || /[\n\r]/.test(path)) throw new Error(`a name with a line break cannot be read: ${JSON.stringify(rev)}`);
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

/**
 * The blobs `names` name (`<commit>:<path>` or an object id), read with one `cat-file --batch`.
 * A name that names no blob maps to null.
 */
export async function readBlobs(cwd: string, names: readonly string[]): Promise<Map<string, string | null>> {
  const found = new Map<string, string | null>();
  if (!names.length) return found;
  for (const name of names) if (/[\n\r]/.test(name)) throw new Error(`a name with a line break cannot be read: ${JSON.stringify(name)}`);
  const talk = startGit(cwd, ['cat-file', '--batch']);
  talk.done.catch(() => undefined);
  const reader = new BatchReader(talk.stdout);
  try {
    talk.stdin.end(names.map((name) => `${name}\n`).join(''));
    for (const name of names) {
      const object = await reader.next();
      found.set(name, object?.type === 'blob' ? object.content.toString('utf8') : null);
    }
    await talk.done;
    return found;
  } catch (error) {
    talk.stdin.destroy();
    const result = await talk.done.catch((failed: unknown) => failed);
    throw result instanceof GitError ? result : error;
  }
}
