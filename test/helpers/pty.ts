// Runs the built CLI under a pseudo-terminal, so that its stderr is a TTY as on a person's
// screen: util-linux `script` when it is installed, else python3's pty module. Neither: the test
// fails and says what it needs (it never skips). The command line given to `script` is built only
// from the node binary's and the CLI's paths (single-quoted) and fixed arguments.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { LAND_BIN } from './cli.js';

function onPath(program: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

const PY_PTY =
  'import os, pty, sys\nstatus = pty.spawn(sys.argv[1:])\nsys.exit(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8)';

export function ptyLauncher(argv: readonly string[]): { file: string; args: string[] } {
  if (argv.some((word) => !/^[A-Za-z0-9._/=:@+-]+$/.test(word)))
    throw new Error(`ptyLauncher: refusing an argument it did not expect: ${JSON.stringify(argv)}`);
  if (onPath('script')) return { file: 'script', args: ['-qfec', argv.map(shellQuote).join(' '), '/dev/null'] };
  if (onPath('python3')) return { file: 'python3', args: ['-c', PY_PTY, ...argv] };
  throw new Error('this test runs `land run` under a pseudo-terminal and needs util-linux `script` (Debian: bsdutils) or python3 on PATH; install one of them');
}

export interface PtyResult {
  code: number | null;
  /** Everything the terminal received (stdout and stderr together, as on a screen). */
  output: string;
}

/** `land <args>` in `cwd` under a pseudo-terminal; `env` is the whole environment (undefined values removed). */
export function landInPty(cwd: string, args: readonly string[], env: Record<string, string | undefined>, timeoutMs = 30_000): Promise<PtyResult> {
  const launcher = ptyLauncher([process.execPath, LAND_BIN, ...args]);
  const clean: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) clean[key] = value;
  return new Promise((resolve, reject) => {
    const child = spawn(launcher.file, launcher.args, { cwd, env: clean, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
