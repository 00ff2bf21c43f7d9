// The stand-in ssh (fixtures/ssh/fake-ssh) and a way to run any ssh program with arguments,
// stdin and an environment, for the tests that check the stand-in against ssh's behaviour.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from './cli.js';

export const FAKE_SSH = join(FIXTURES, 'ssh', 'fake-ssh');

export interface SshResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface SshOptions {
  env?: Record<string, string>;
  input?: string;
  /** Leave ssh's stdin open after `input` (as the batch wrapper does): the test ends or drops it. */
  holdStdin?: boolean;
}

export function startSsh(program: string, args: string[], opts: SshOptions = {}) {
  const child = spawn(program, args, { env: opts.env ?? (process.env as Record<string, string>), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.on('error', () => undefined);
  if (opts.holdStdin) child.stdin.write(opts.input ?? '');
  else child.stdin.end(opts.input ?? '');
  const done = new Promise<SshResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

export function runSsh(program: string, args: string[], opts: SshOptions = {}): Promise<SshResult> {
  return startSsh(program, args, opts).done;
}

/** Resolves once `text` has appeared on the stream (within 20 s: an sshd login can be slow). */
export function untilOutput(out: NodeJS.ReadableStream | null, text: string): Promise<void> {
  if (!out) return Promise.reject(new Error('no output stream'));
  return new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no "${text}" within 20 s`)), 20_000);
    out.on('data', (d: Buffer) => {
      seen += d.toString();
      if (seen.includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}

/** What a remote command saw when the ssh client was killed mid-session, and how ssh ended. */
export interface SessionLoss {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** ssh itself ended within 2 s of the signal. */
  endedAtOnce: boolean;
  /** The signals the remote command caught: PIPE means its output was closed under it. */
  remoteCaught: string[];
  /** Its stdin reached EOF. */
  stdinEof: boolean;
  /** It went on after the session ended, and its next write to stdout failed. */
  writeFailed: boolean;
}

/**
 * Starts `program args... <remote script>` with its stdin held open, kills the ssh client with
 * `signal` once the remote command runs, then reads what the remote command recorded in `dir`.
 */
export async function loseSession(program: string, args: string[], signal: NodeJS.Signals, dir: string, env: Record<string, string>): Promise<SessionLoss> {
  const trace = join(dir, 'trace');
  const script = [
    `for s in TERM INT HUP PIPE; do trap "echo caught-$s >> '${trace}'" $s; done`,
    'echo ready',
    'cat > /dev/null',
    `echo stdin-eof >> '${trace}'`,
    'i=0',
    `while [ $i -lt 100 ]; do echo tick || { echo write-failed >> '${trace}'; break; }; sleep 0.1; i=$((i+1)); done`,
    `echo end >> '${trace}'`,
  ].join('; ');
  const ssh = startSsh(program, [...args, script], { env, holdStdin: true });
  await untilOutput(ssh.child.stdout, 'ready');
  const killedAt = Date.now();
  const exited = new Promise<number>((resolve) => ssh.child.on('exit', () => resolve(Date.now() - killedAt)));
  ssh.child.kill(signal);
  const exitMs = await exited;
  const { code, signal: endSignal } = await ssh.done;
  const deadline = Date.now() + 15_000;
  const read = () => (existsSync(trace) ? readFileSync(trace, 'utf8') : '');
  while (!read().includes('end\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const lines = read().split('\n');
  return {
    code,
    signal: endSignal,
    endedAtOnce: exitMs < 2_000,
    remoteCaught: [...new Set(lines.filter((l) => l.startsWith('caught-')).map((l) => l.slice('caught-'.length)))],
    stdinEof: lines.includes('stdin-eof'),
    writeFailed: lines.includes('write-failed'),
  };
}

/** What ssh does when it is killed mid-session without a terminal (OpenSSH, checked in laneSshd.test.ts). */
export const SESSION_LOST: SessionLoss = { code: 255, signal: null, endedAtOnce: true, remoteCaught: ['PIPE'], stdinEof: true, writeFailed: true };
