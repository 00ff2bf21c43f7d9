// The stand-in ssh (fixtures/ssh/fake-ssh) and a way to run any ssh program with arguments,
// stdin and an environment, for the tests that check the stand-in against ssh's behaviour.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { FIXTURES } from '../helpers/cli.js';

export const FAKE_SSH = join(FIXTURES, 'ssh', 'fake-ssh');

export interface SshResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function startSsh(program: string, args: string[], opts: { env?: Record<string, string>; input?: string } = {}) {
  const child = spawn(program, args, { env: opts.env ?? (process.env as Record<string, string>), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.on('error', () => undefined);
  child.stdin.end(opts.input ?? '');
  const done = new Promise<SshResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

export function runSsh(program: string, args: string[], opts: { env?: Record<string, string>; input?: string } = {}): Promise<SshResult> {
  return startSsh(program, args, opts).done;
}
