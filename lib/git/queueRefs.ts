// The git side of a queue kept in a remote (docs/remote.md): fetch the queue refs, write the
// commits that carry records and leases, and push them in one atomic push with a lease on every
// ref it moves. The remote's receive-pack checks each lease as the old value of its update inside
// one ref transaction, so the push is a compare-and-swap over all of its refs at once.
import { GitError, git, runGit, startGit } from './run.js';

export interface FileEntry {
  name: string;
  content: string;
}

export interface NewCommit {
  /** The first parent; null starts a new chain. */
  parent: string | null;
  files: readonly FileEntry[];
  message: string;
}

const SCRATCH_REF = 'refs/land-scratch/commit';
const IDENTITY = 'land <land@localhost>';

function data(text: string): string {
  return `data ${Buffer.byteLength(text)}\n${text}\n`;
}

/**
 * Writes commits of small files with one `git fast-import` and returns their ids in order. No ref
 * is left behind: each commit is made on a scratch ref that is reset before the next and at the end.
 */
export async function writeCommits(cwd: string, commits: readonly NewCommit[], now = new Date()): Promise<string[]> {
  if (!commits.length) return [];
  const seconds = Math.floor(now.getTime() / 1000);
  let mark = 0;
  let stream = 'feature done\n';
  const marks: number[] = [];
  for (const commit of commits) {
    const blobs = commit.files.map((file) => {
      mark += 1;
      stream += `blob\nmark :${mark}\n${data(file.content)}`;
      return { name: file.name, mark };
    });
    mark += 1;
    marks.push(mark);
    stream += `reset ${SCRATCH_REF}\ncommit ${SCRATCH_REF}\nmark :${mark}\ncommitter ${IDENTITY} ${seconds} +0000\n${data(commit.message)}`;
    if (commit.parent) stream += `from ${commit.parent}\n`;
    for (const blob of blobs) stream += `M 100644 :${blob.mark} ${blob.name}\n`;
    stream += `\nget-mark :${mark}\n`;
  }
  stream += `reset ${SCRATCH_REF}\n\ndone\n`;
  const out = await git(cwd, ['fast-import', '--quiet', '--date-format=raw'], { input: stream });
  const ids = out.split('\n').filter((line) => /^[0-9a-f]{40,64}$/.test(line));
  if (ids.length !== marks.length) throw new Error(`git fast-import returned ${ids.length} commit ids for ${marks.length} commits`);
  return ids;
}

/** The object a ref names, and its type (`commit`, `tree`, `blob`, `tag`). */
export interface RefObject {
  oid: string;
  type: string;
}

/** Every ref under `prefix` (a folder, ending in `/`, or one ref), the object it names and that object's type. */
export async function listRefs(cwd: string, prefix: string): Promise<Map<string, RefObject>> {
  const out = await git(cwd, ['for-each-ref', '--format=%(objectname) %(objecttype) %(refname)', '--end-of-options', prefix]);
  const refs = new Map<string, RefObject>();
  for (const line of out.split('\n')) {
    const [oid = '', type = ''] = line.split(' ', 2);
    if (oid && type) refs.set(line.slice(oid.length + type.length + 2), { oid, type });
  }
  return refs;
}

/** A remote that could not be reached (or refused to talk): git's one-line reason. */
export class RemoteUnreachable extends Error {
  constructor(
    readonly remote: string,
    readonly reason: string,
  ) {
    super(`the remote ${remote} could not be reached: ${reason}`);
    this.name = 'RemoteUnreachable';
  }
}

function unreachable(remote: string, error: unknown): unknown {
  if (!(error instanceof GitError)) return error;
  return new RemoteUnreachable(remote, firstProblem(error.stderr) || `exit ${error.exitCode}`);
}

/** git's line that says what went wrong, without its `fatal: ` or `error: `. */
function firstProblem(stderr: string): string {
  const lines = stderr.trim().split('\n');
  const said = lines.find((line) => /^(fatal|error|ssh): /.test(line)) ?? lines[0] ?? '';
  return said.replace(/^(fatal|error): /, '');
}

/**
 * The queue's refs of this clone are locked by another git process, and stayed locked through
 * every try (a stale `.lock` file left by a killed git, most likely).
 */
export class LocalRefsBusy extends Error {
  constructor(readonly reason: string) {
    super(`a ref of this clone stayed locked by another git process: ${reason}`);
    this.name = 'LocalRefsBusy';
  }
}

/**
 * True when git failed because another process in the same clone was updating the same local ref:
 * its `.lock` file existed, or the ref moved between git reading it and locking it ("is at X but
 * expected Y"). Two `land` commands started together in one clone both fetch the queue refs, so
 * this is an expected race there, not a remote that cannot be reached.
 */
export function isLocalRefRace(stderr: string): boolean {
  return /cannot lock ref|Unable to create '[^']*\.lock': File exists/.test(stderr);
}

// Tries of a local ref update that keeps losing to other git processes of the clone, and git's own
// wait for a ref's lock file before it gives up (core.filesRefLockTimeout, ms; git's default is 100).
const LOCAL_REF_TRIES = 8;
const REF_LOCK_TIMEOUT = ['-c', 'core.filesRefLockTimeout=500'];

/** Runs `args` again while it loses a race for a local ref to another git process of the clone. */
async function withLocalRefRetry(cwd: string, args: readonly string[], onOther: (error: unknown) => unknown): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await runGit(cwd, [...REF_LOCK_TIMEOUT, ...args]);
      return;
    } catch (error) {
      if (!(error instanceof GitError && isLocalRefRace(error.stderr))) throw onOther(error);
      if (attempt >= LOCAL_REF_TRIES) throw new LocalRefsBusy(firstProblem(error.stderr));
      await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** Math.min(attempt, 4) * (0.5 + Math.random())));
    }
  }
}

/**
 * Fetches `refspecs` (forced, pruned) from `remote` in one `git fetch`; a fetch that lost a local
 * ref to another fetch of the same clone is run again (it then brings what the other one brought,
 * or newer).
 */
export async function fetchRefs(cwd: string, remote: string, refspecs: readonly string[]): Promise<void> {
  const args = ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--prune', '--no-auto-gc', '--end-of-options', remote, ...refspecs];
  await withLocalRefRetry(cwd, args, (error) => unreachable(remote, error));
}

export interface RefUpdate {
  ref: string;
  /** The commit the ref moves to. */
  to: string;
  /** The value the remote must hold for the push to go through; null: the ref must not exist. */
  expect: string | null;
}

export type AtomicPush = { kind: 'pushed' } | { kind: 'refused'; refs: { ref: string; why: string }[] };

/**
 * One `git push --atomic` of every update, each with its lease. Refused (a lease did not hold,
 * a hook said no): nothing moved, and the refs git named as the cause are returned.
 */
export async function pushAtomic(cwd: string, remote: string, updates: readonly RefUpdate[], env?: Record<string, string>): Promise<AtomicPush> {
  if (!updates.length) return { kind: 'pushed' };
  const args = ['push', '--atomic', '--porcelain', '--no-verify', '--quiet'];
  for (const update of updates) args.push(`--force-with-lease=${update.ref}:${update.expect ?? ''}`);
  args.push('--end-of-options', remote, ...updates.map((update) => `${update.to}:${update.ref}`));
  const result = await runGit(cwd, args, { okCodes: [1], env }).catch((error: unknown) => {
    // git exits 128 when it cannot talk to the remote, and also when an atomic push is refused
    // part-way by the server ("atomic push failed"): porcelain lines tell the two apart.
    if (error instanceof GitError && /^!\t/m.test(error.stdout)) return { code: 1, stdout: error.stdout, stderr: error.stderr };
    throw unreachable(remote, error);
  });
  if (result.code === 0) return { kind: 'pushed' };
  const refs: { ref: string; why: string }[] = [];
  for (const line of result.stdout.split('\n')) {
    const [flag, spec, summary] = line.split('\t');
    if (flag !== '!' || !spec) continue;
    const ref = spec.slice(spec.lastIndexOf(':') + 1);
    refs.push({ ref, why: (summary ?? '').trim() });
  }
  if (!refs.length) throw unreachable(remote, new GitError(args, result));
  return { kind: 'refused', refs };
}

/**
 * The messages of the commits reachable from each `tip` but not from its `since` (chains of
 * commits that share no history), oldest first within a chain. git's output is read as it comes,
 * message by message: one larger than `maxMessageBytes` (someone pushed it: anyone may) is counted
 * in `tooLarge` and dropped unread, never gathered into one string.
 */
export async function chainMessages(
  cwd: string,
  ranges: readonly { tip: string; since: string | null }[],
  maxMessageBytes: number,
): Promise<{ messages: string[]; tooLarge: number }> {
  const messages: string[] = [];
  let tooLarge = 0;
  if (!ranges.length) return { messages, tooLarge };
  const revs = ranges.flatMap((range) => (range.since ? [range.tip, `^${range.since}`] : [range.tip]));
  const talk = startGit(cwd, ['log', '--topo-order', '--reverse', '--format=%x1e%B', '--stdin']);
  talk.done.catch(() => undefined);
  let parts: Buffer[] = [];
  let size = 0;
  let over = false;
  let started = false;
  const take = (piece: Buffer) => {
    if (over || !piece.length) return;
    size += piece.length;
    if (size > maxMessageBytes) [over, parts] = [true, []];
    else parts.push(piece);
  };
  const finish = () => {
    if (over) tooLarge += 1;
    else if (started) {
      const message = Buffer.concat(parts).toString('utf8').trim();
      if (message) messages.push(message);
    }
    [parts, size, over, started] = [[], 0, false, true];
  };
  talk.stdout.on('data', (chunk: Buffer) => {
    let from = 0;
    for (let at = chunk.indexOf(0x1e); at >= 0; at = chunk.indexOf(0x1e, from)) {
      take(chunk.subarray(from, at));
      finish();
      from = at + 1;
    }
    take(chunk.subarray(from));
  });
  talk.stdin.end(`${revs.join('\n')}\n`);
  await talk.done;
  finish();
  return { messages, tooLarge };
}

/**
 * The newest `max` commits reachable from `tip` but not from `since`, oldest first: ids only, so
 * a chain someone else wrote costs a bounded read however long or large it is.
 */
export async function chainCommits(cwd: string, range: { tip: string; since: string | null }, max: number): Promise<string[]> {
  const revs = range.since ? [range.tip, `^${range.since}`] : [range.tip];
  const out = await runGit(cwd, ['rev-list', '--topo-order', '--reverse', `--max-count=${max}`, '--stdin'], { input: `${revs.join('\n')}\n` });
  return out.stdout.split('\n').filter((line) => /^[0-9a-f]{40,64}$/.test(line));
}

/** Points a ref of this clone's own (a remote-tracking ref) at `commit`. */
export async function setLocalRef(cwd: string, ref: string, commit: string): Promise<void> {
  await withLocalRefRetry(cwd, ['update-ref', '--end-of-options', ref, commit], (error) => error);
}
