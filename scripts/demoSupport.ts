// What the demo needs besides its story: running the real CLI as a child process with its output
// streamed through as it happens, and a throwaway repository set up like the tests' repositories
// (per-repo identity, no signing, no auto gc, branch main).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built CLI, next to this compiled file: dist/scripts/demo.js -> dist/bin/land.js. */
export const LAND_BIN = fileURLToPath(new URL('../bin/land.js', import.meta.url));

/** A step of the story that did not go as planned: the demo prints it and exits non-zero. */
export class DemoError extends Error {}

export interface StepResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment of every child: the caller's, minus git variables that would aim git elsewhere. */
export function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY']) delete env[name];
  return env;
}

/** Quotes an argument for display only (nothing is ever run through a shell). */
function shown(arg: string): string {
  return /^[A-Za-z0-9._/@:=+,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs `program args` in `cwd`, prints `$ <shownAs>` first, streams stdout and stderr through
 * as they arrive and keeps a copy of both. A non-zero exit is a DemoError unless `allowFail`.
 */
export function step(
  shownAs: readonly string[],
  program: string,
  args: readonly string[],
  opts: { cwd: string; allowFail?: boolean; quiet?: boolean },
): Promise<StepResult> {
  const title = shownAs.map(shown).join(' ');
  if (!opts.quiet) process.stdout.write(`\n$ ${title}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(program, [...args], { cwd: opts.cwd, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!opts.quiet) process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!opts.quiet) process.stderr.write(chunk);
    });
    child.on('error', (error) => reject(new DemoError(`could not start ${title}: ${error.message}`)));
    child.on('close', (code, signal) => {
      const status = code ?? 128;
      if (status !== 0 && !opts.allowFail) {
        const tail = opts.quiet ? `\n${stderr.trim()}` : '';
        reject(new DemoError(`${title} exited ${signal ? `on ${signal}` : status}${tail}`));
        return;
      }
      resolve({ code: status, stdout, stderr });
    });
  });
}

/** The real CLI: `node dist/bin/land.js args`, shown as `$ land args`. */
export function land(cwd: string, args: readonly string[], opts: { allowFail?: boolean; quiet?: boolean } = {}): Promise<StepResult> {
  return step(['land', ...args], process.execPath, [LAND_BIN, ...args], { cwd, ...opts });
}

/** Shown git: printed with its output, like a land step. */
export function shownGit(cwd: string, args: readonly string[]): Promise<StepResult> {
  return step(['git', ...args], 'git', args, { cwd });
}

/** Quiet git for the set-up: argv, no shell; throws with git's stderr on failure. */
export function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', args, { cwd, env: childEnv(), encoding: 'utf8' });
  if (result.error) throw new DemoError(`could not run git ${args.join(' ')}: ${result.error.message}`);
  if (result.status !== 0) throw new DemoError(`git ${args.join(' ')} exited ${result.status ?? result.signal}: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}

/** Writes `files` in the checkout at `dir` and commits them there; returns the new commit. */
export function commitFiles(dir: string, message: string, files: Record<string, string>, remove: readonly string[] = []): string {
  writeFiles(dir, files);
  for (const path of remove) git(dir, 'rm', '-q', '--', path);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
  return git(dir, 'rev-parse', 'HEAD');
}

/** A new repository at `dir` that behaves the same on every machine. */
export function initRepo(dir: string): void {
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Land Demo');
  git(dir, 'config', 'user.email', 'demo@land.invalid');
  git(dir, 'config', 'commit.gpgSign', 'false');
  git(dir, 'config', 'gc.auto', '0');
}

/** Creates `branch` from `from` with one commit; the checkout goes back to `main` afterwards. */
export function makeBranch(dir: string, branch: string, message: string, files: Record<string, string>, from = 'main'): string {
  git(dir, 'checkout', '-q', '-b', branch, from);
  const tip = commitFiles(dir, message, files);
  git(dir, 'checkout', '-q', 'main');
  return tip;
}

export function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** A heading between the acts of the story. */
export function act(title: string): void {
  say(`\n=== ${title} ${'='.repeat(Math.max(3, 74 - title.length))}`);
}
