// The rule for git in land: `runGit` below is the only function in lib/ and bin/ that starts git
// (with `startGit`, its form for a conversation over stdin, such as `cat-file --batch`).
// Every git call goes through it (or `git`, its trimmed-stdout form), from a module in lib/git/
// named by intent; nothing else spawns git and no git library is used (the demo and bench
// harnesses drive git on their own, as a user would). Arguments travel as argv, never through a
// shell. Error policy: git's exit code decides, not its stderr. Exit 0, or a code the caller
// listed in `okCodes` because it is an expected outcome (1 from `merge-base --is-ancestor`), is a
// result; any other exit rejects with one GitError carrying the args, exit code, stdout and
// stderr. The lib/git/ module turns expected outcomes into tagged values (a conflict, a lost CAS,
// a worktree that could not be made); what a caller cannot plan for stays a GitError.
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  /** Written to git's stdin (commit messages go through `-F -`). */
  input?: string;
  /** Added to the inherited environment (never replaces it). */
  env?: Record<string, string | undefined>;
  /** Exit codes that are outcomes, not failures (for example 1 from `merge-base --is-ancestor`). */
  okCodes?: readonly number[];
}

/**
 * The line of git's stderr that says why it failed: the first `fatal:` or `error:` line (progress
 * such as `Preparing worktree` may come before it), else the first line.
 */
function reason(stderr: string): string {
  const lines = stderr.trim().split('\n');
  return lines.find((line) => /^(fatal|error): /.test(line)) ?? lines[0] ?? '';
}

export class GitError extends Error {
  readonly args: readonly string[];
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;

  constructor(args: readonly string[], result: GitResult) {
    const said = reason(result.stderr);
    super(`git ${args.slice(0, 3).join(' ')} failed (exit ${result.code})${said ? `: ${said}` : ''}`);
    this.name = 'GitError';
    this.args = args;
    this.exitCode = result.code;
    this.stdout = result.stdout;
    this.stderr = result.stderr;
  }
}

// Keeps git from prompting, paging or reading the user's global hooks into a drain.
const QUIET_ENV = { GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C' };

function spawnGit(cwd: string, args: readonly string[], env: GitOptions['env'], stdin: 'pipe' | 'ignore'): ChildProcess {
  return spawn('git', args, { cwd, env: { ...process.env, ...QUIET_ENV, ...env }, stdio: [stdin, 'pipe', 'pipe'] });
}

export function runGit(cwd: string, args: readonly string[], opts: GitOptions = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    // No stdin pipe unless there is input: one pipe (and its socket) less per call.
    const child = spawnGit(cwd, args, opts.env, opts.input === undefined ? 'ignore' : 'pipe');
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const result: GitResult = {
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      };
      if (result.code === 0 || opts.okCodes?.includes(result.code)) resolve(result);
      else reject(new GitError(args, result));
    });
    if (opts.input === undefined) return;
    child.stdin?.on('error', () => undefined); // git may exit before reading all of its input
    child.stdin?.end(opts.input);
  });
}

/** A git process to talk to: write requests to `stdin`, read `stdout`; `done` settles as runGit does. */
export interface GitConversation {
  stdin: Writable;
  stdout: Readable;
  done: Promise<GitResult>;
}

/** Starts git with a stdin to write to and a stdout to read while it runs (`cat-file --batch`). */
export function startGit(cwd: string, args: readonly string[], opts: Omit<GitOptions, 'input'> = {}): GitConversation {
  const child = spawnGit(cwd, args, opts.env, 'pipe');
  const { stdin, stdout, stderr } = child as ChildProcessWithoutNullStreams;
  const err: Buffer[] = [];
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  stdin.on('error', () => undefined);
  const done = new Promise<GitResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const result: GitResult = { code: code ?? (signal ? 128 : 1), stdout: '', stderr: Buffer.concat(err).toString('utf8') };
      if (result.code === 0 || opts.okCodes?.includes(result.code)) resolve(result);
      else reject(new GitError(args, result));
    });
  });
  return { stdin, stdout, done };
}

/** Runs git and returns trimmed stdout; throws GitError on a non-zero exit. */
export async function git(cwd: string, args: readonly string[], opts: GitOptions = {}): Promise<string> {
  const result = await runGit(cwd, args, opts);
  return result.stdout.trim();
}
