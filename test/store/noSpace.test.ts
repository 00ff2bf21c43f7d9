// A full disk under the state folder: a clear one-line error and exit 11 (`no_space`), no
// half-written record or journal line, no temp file left behind (in jobs/ or locks/), and the queue
// works once space returns. Two variants: the `enospc-write` failpoint (always), and a real full
// tmpfs mounted over .git/land in a private mount namespace (where this machine allows it: root,
// `unshare` and `nsenter`). Each test's title says which variant it ran.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, LAND_BIN, land, type CliResult } from '../helpers/cli.js';
import { cleanupTempDirs, type TestRepo } from '../helpers/repo.js';
import { statusJobsById, makeQueueRepo, submitBranches } from '../helpers/queue.js';

const holders: ChildProcess[] = [];
afterAll(() => {
  for (const holder of holders) holder.kill('SIGKILL');
  cleanupTempDirs();
});

type Runner = (args: string[], env?: Record<string, string>) => Promise<CliResult>;

const stateDir = (repo: TestRepo) => join(repo.dir, '.git', 'land');

/** Every temp file anywhere under the state folder. */
function tempFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.includes('.tmp-') && !name.startsWith('trains/'));
}

function expectNoSpace(result: CliResult, what: RegExp): void {
  expect(result.code, result.stderr).toBe(11);
  const first = result.stderr.split('\n').find((line) => line.startsWith('land: ')) ?? ''; // after the drain's progress lines
  expect(first).toMatch(what);
  expect(first).toMatch(/no space left on device \(ENOSPC\)/);
  expect(result.stderr).not.toMatch(/internal error/);
}

/** Why a tmpfs cannot be mounted in a private mount namespace here; null when it can. */
function tmpfsUnavailable(): string | null {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return 'not root';
  try {
    execFileSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs /mnt 2>/dev/null || mount -t tmpfs -o size=64k tmpfs /tmp'], {
      stdio: 'ignore',
    });
    execFileSync('nsenter', ['--version'], { stdio: 'ignore' });
    return null;
  } catch (error) {
    return `unshare/mount/nsenter failed: ${(error as Error).message.split('\n')[0]}`;
  }
}

/** A process holding a private mount namespace in which a small tmpfs is mounted over `dir`. */
async function holdTmpfs(dir: string, size: string): Promise<number> {
  const holder = spawn(
    'unshare',
    ['-m', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs -o "size=$1" tmpfs "$0" && echo mounted && exec sleep 600', dir, size],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  holders.push(holder);
  await new Promise<void>((resolve, reject) => {
    holder.stdout?.on('data', (data: Buffer) => data.toString().includes('mounted') && resolve());
    holder.on('exit', (code) => reject(new Error(`the tmpfs holder exited ${code}`)));
  });
  return holder.pid as number;
}

/** Runs `argv` inside the holder's mount namespace, in `cwd`. */
function inNamespace(pid: number, cwd: string, argv: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const child = spawn('nsenter', ['-t', String(pid), '-m', `--wd=${cwd}`, ...argv], { env: { ...process.env, CI: '1', NO_COLOR: '1', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) =>
    child.on('close', (code) =>
      resolve({
        code: code ?? 128,
        stdout,
        stderr,
        json: () => JSON.parse(stdout),
        lines: () =>
          stdout
            .split('\n')
            .filter((l) => l.trim() !== '')
            .map((l) => JSON.parse(l)),
      }),
    ),
  );
}

describe('a full disk under the state folder', () => {
  it('variant: the enospc-write failpoint: exit 11, nothing half-written, the queue works once space returns', async () => {
    process.stderr.write('noSpace.test: running the enospc-write failpoint variant\n');
    const repo = makeQueueRepo();
    // A drain that ends by an error still tells the `stopped` notifiers why (lib/landing/drain.ts).
    const notified = join(repo.scratch, 'notified.jsonl');
    const policy = JSON.parse(repo.git('show', 'main:.ctm.json'));
    policy.notify = [{ on: ['stopped'], run: ['sh', join(FIXTURES, 'notify', 'append-stdin.sh')], env: { NOTIFY_OUT: notified } }];
    repo.commit('notify the stops', { '.ctm.json': `${JSON.stringify(policy, null, 2)}\n` });
    const [first] = await submitBranches(repo, 1);
    const journal = join(stateDir(repo), 'journal.jsonl');
    const journalBefore = readFileSync(journal, 'utf8');
    repo.branch('second', { 'second.txt': 'second\n' });
    // The journal line cannot be written: nothing changes.
    expectNoSpace(await land(repo.dir, ['submit', 'second'], { env: { LAND_FAILPOINT: 'enospc-write' } }), /could not write the journal \(.*journal\.jsonl\)/);
    // The journal line is written, the record is not: the line is taken back, so neither changed.
    expectNoSpace(await land(repo.dir, ['submit', 'second'], { env: { LAND_FAILPOINT: 'enospc-write@2' } }), /could not write job record j-[0-9-]+ /);
    expect(readFileSync(journal, 'utf8')).toBe(journalBefore);
    expect(readdirSync(join(stateDir(repo), 'jobs'))).toEqual([`${first}.json`]);
    // The drain cannot write its holder file: no 0-byte temp file is left in locks/, the lock is free.
    expectNoSpace(await land(repo.dir, ['run'], { env: { LAND_FAILPOINT: 'enospc-write' } }), /could not write the drain-holder file/);
    // A write in the middle of the drain.
    expectNoSpace(await land(repo.dir, ['run', '--no-wait'], { env: { LAND_FAILPOINT: 'enospc-write@5' } }), /could not write/);
    const stops = readFileSync(notified, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(stops).toEqual([expect.objectContaining({ event: 'stopped', stopped: expect.objectContaining({ why: 'no_space' }) })]);
    expect(stops[0].stopped.message).toMatch(/no space left on device/);
    expect(tempFiles(stateDir(repo))).toEqual([]);
    // Space is back.
    expect((await land(repo.dir, ['submit', 'second'])).code).toBe(0);
    const run = await land(repo.dir, ['run', '--no-wait']);
    expect(run.code, run.stderr).toBe(0);
    expect([...(await statusJobsById(repo)).values()].map((job) => job.state)).toEqual(['landed', 'landed']);
  });

  const unavailable = tmpfsUnavailable();
  const title = unavailable
    ? `variant: a real full tmpfs is not available here (${unavailable}); the failpoint variant above stands in for it`
    : 'variant: a real full tmpfs over .git/land: exit 11, nothing half-written, the queue works once space returns';
  it(title, async () => {
    if (unavailable) {
      process.stderr.write(`noSpace.test: tmpfs variant NOT run: ${unavailable}\n`);
      expect(unavailable).toMatch(/^(not Linux|not root|unshare)/);
      return;
    }
    process.stderr.write('noSpace.test: running the tmpfs variant\n');
    const repo = makeQueueRepo();
    const dir = stateDir(repo);
    execFileSync('mkdir', ['-p', dir]);
    const pid = await holdTmpfs(dir, '2m');
    const run: Runner = (args, env) => inNamespace(pid, repo.dir, [process.execPath, LAND_BIN, ...args], env);
    const ls = async (sub: string) =>
      (await inNamespace(pid, repo.dir, ['ls', '-a', join(dir, sub)])).stdout.split('\n').filter((n) => n && n !== '.' && n !== '..');
    const cat = async (file: string) => (await inNamespace(pid, repo.dir, ['cat', join(dir, file)])).stdout;
    repo.branch('first', { 'first.txt': 'first\n' });
    repo.branch('second', { 'second.txt': 'second\n' });
    expect((await run(['submit', 'first'])).code).toBe(0);
    expect((await ls('.')).length).toBeGreaterThan(0); // the state lives in the tmpfs, not on the real disk
    expect(existsSync(join(dir, 'journal.jsonl'))).toBe(false);
    const journalBefore = await cat('journal.jsonl');
    // Fill the file system.
    await inNamespace(pid, repo.dir, ['sh', '-c', 'cat /dev/zero > "$0" 2>/dev/null; exit 0', join(dir, 'filler')]);
    expectNoSpace(await run(['submit', 'second']), /could not write (the journal|job record)/);
    expect(await cat('journal.jsonl')).toBe(journalBefore);
    expect((await ls('jobs')).length).toBe(1);
    expectNoSpace(await run(['run']), /could not write/);
    const temps = await inNamespace(pid, repo.dir, ['find', dir, '-name', '*.tmp-*', '-not', '-path', '*/trains/*']);
    expect(temps.stdout.trim()).toBe('');
    expect(await cat('journal.jsonl')).toMatch(/\n$/);
    // Space returns.
    await inNamespace(pid, repo.dir, ['rm', '-f', join(dir, 'filler')]);
    expect((await run(['submit', 'second'])).code).toBe(0);
    const drained = await run(['run', '--no-wait']);
    expect(drained.code, drained.stderr).toBe(0);
    const status = (await run(['status', '--all', '--json'])).json<{ jobs: { state: string }[] }>();
    expect(status.jobs.map((job) => job.state)).toEqual(['landed', 'landed']);
  });
});
