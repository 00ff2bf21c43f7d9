// A branch's tip and one file at that tip, read by one git process instead of two (`rev-parse`
// then `cat-file blob`): `git cat-file --batch-command` names the tip, the file at the tip, and
// the tip again. Each line resolves the branch anew, so the answer counts only when the first and
// the last line name the same commit; otherwise (the branch moved meanwhile) it is null and the
// caller reads the two apart.
import { branchRef } from './revParse.js';
import { runGit } from './run.js';

export interface FileAtTip {
  /** The branch's tip commit, or null when the branch does not exist. */
  tip: string | null;
  /** The file's content at `tip`, or null when the file is not there (or the branch is not). */
  content: string | null;
}

/** `<id> <type> <size>` as cat-file prints an object it found. */
const FOUND = /^([0-9a-f]{40,64}) ([a-z]+) (\d+)$/;

/** The file in the middle answer (`<id> blob <size>\n<content>\n`), or null when it is not a blob there. */
function fileContent(middle: string): string | null | undefined {
  const newline = middle.indexOf('\n');
  const header = FOUND.exec(newline === -1 ? middle : middle.slice(0, newline));
  if (!header) return middle.endsWith(' missing') ? null : undefined;
  if (header[2] !== 'blob') return null;
  const content = middle.slice(newline + 1);
  // The size counts bytes: anything else means the answer was not read as written.
  return Buffer.byteLength(content, 'utf8') === Number(header[3]) ? content : undefined;
}

/**
 * The tip of `branch` and the content of `path` there (`path` relative to the tree's root). null
 * when one process could not say it consistently: the branch moved between the lines, or the
 * output is not what this reader expects. A branch that does not exist is `{ tip: null }`.
 */
export async function fileAtTip(cwd: string, branch: string, path: string): Promise<FileAtTip | null> {
  const tip = `${branchRef(branch)}^{commit}`;
  const input = `info ${tip}\ncontents ${tip}:${path}\ninfo ${tip}\n`;
  const out = (await runGit(cwd, ['cat-file', '--batch-command'], { input })).stdout;
  if (!out.endsWith('\n')) return null;
  const firstEnd = out.indexOf('\n');
  const lastStart = out.lastIndexOf('\n', out.length - 2) + 1;
  const first = out.slice(0, firstEnd);
  if (lastStart <= firstEnd || out.slice(lastStart, -1) !== first) return null;
  if (first === `${tip} missing`) return { tip: null, content: null };
  const commit = FOUND.exec(first);
  if (commit?.[2] !== 'commit') return null;
  // Between the two: the file's answer, then the newline cat-file writes after any content.
  const content = fileContent(out.slice(firstEnd + 1, lastStart - 1));
  return content === undefined ? null : { tip: commit[1] as string, content };
}
