// The drain keeps one gate worktree per slot and moves it from train to train
// (lib/landing/gates/worktreePool.ts). A gate is untrusted: here each one leaves every kind of
// mess it can in its worktree (files untracked, ignored, changed, removed, a mode changed, a nested
// repository, a symlink out, its `.git` file rewritten), and the next train's gate must see exactly
// its own train's tree, and land must never use the `.git` file the gate wrote.
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDrain, submitInProcess } from '../../helpers/drainHarness.js';
import { cleanupTempDirs, makeRepo, testScratchRoot, UNSANDBOXED } from '../../helpers/repo.js';
import { readJobFile, stateDir } from '../../helpers/state.js';
import { LAND_BIN, land } from '../../helpers/cli.js';

afterAll(cleanupTempDirs);

// What the gate sees (every path with its mode and type, the `.git` file, a tracked file), then the mess.
const HOSTILE_GATE = [
  "echo \"SEEN $(find . -path ./.git -prune -o -printf '%p:%m:%y ' | tr ' ' '\\n' | LC_ALL=C sort | tr '\\n' ' ')\"",
  'echo "DOTGIT $(cat .git)"',
  'echo "README $(cat README.md)"',
  'echo hostile > untracked.txt; echo hostile > build.log; echo hostile >> README.md; rm -f keep.txt; chmod 755 mode.txt',
  // A git folder of its own, whose fsmonitor would run outside the sandbox in any git that used it.
  'git init -q nested && git -C nested config core.fsmonitor "touch ${PWD%/.git/land/trains/*}/pwned"',
  'echo "NESTED $(git -C nested config core.fsmonitor)"; mkdir -p deep/er && echo x > deep/er/f',
  'ln -s / escape; printf "gitdir: %s\\n" "$PWD/nested/.git" > .git',
].join('\n');

describe('a reused gate worktree', () => {
  it("shows each train exactly its own tree, whatever the gate before it left; the gate's .git file is never used", async () => {
    const policy = { target: 'main', gates: [{ name: 'hostile', run: ['sh', '-c', HOSTILE_GATE] }], batch: { max: 1 } };
    const repo = makeRepo({ policy });
    repo.commit('files', { '.gitignore': '*.log\n', 'keep.txt': 'keep\n', 'mode.txt': 'mode\n', 'README.md': 'readme\n' });
    for (const name of ['b1', 'b2', 'b3']) repo.branch(name, { [`${name}.txt`]: `${name}\n` });
    repo.git('checkout', '-q', '--detach');
    const ids = await submitInProcess(repo.dir, ['b1', 'b2', 'b3']);
    expect((await land(repo.dir, ['window', '--set', '1'])).code).toBe(0);

    const { summary } = await runDrain(repo.dir);
    expect(summary).toMatchObject({ trains: 3 });
    expect(summary.landed).toEqual(ids);

    const seen = ids.map((id) => {
      const log = readFileSync(readJobFile(repo, id).gateLog as string, 'utf8');
      const line = (key: string) => new RegExp(`^${key} (.*)$`, 'm').exec(log)?.[1]?.trim();
      return { seen: line('SEEN'), dotgit: line('DOTGIT'), readme: line('README') };
    });
    const expected = (own: string[]) =>
      ['.', './.ctm.json', './.gitignore', './README.md', './keep.txt', './mode.txt', ...own.map((name) => `./${name}.txt`)]
        .map((path) => `${path}:${path === '.' ? 755 : 644}:${path === '.' ? 'd' : 'f'}`)
        .sort()
        .join(' ');
    // Each train holds the members landed before it and its own.
    expect(seen.map((s) => s.seen)).toEqual([expected(['b1']), expected(['b1', 'b2']), expected(['b1', 'b2', 'b3'])]);
    expect(seen.map((s) => s.readme)).toEqual(['readme', 'readme', 'readme']);
    // The same slot, its `.git` file written anew by land, never the one the gate wrote.
    expect(new Set(seen.map((s) => s.dotgit)).size).toBe(1);
    expect(seen[0]?.dotgit).toMatch(/^gitdir: .*\/worktrees\/slot-1$/);
    expect(readFileSync(readJobFile(repo, ids[0] as string).gateLog as string, 'utf8')).toMatch(/^NESTED touch \/.*\/pwned$/m);
    expect(existsSync(join(repo.dir, 'pwned'))).toBe(false);

    // The drain's end removed its worktrees; git knows none of them.
    expect(readdirSync(`${stateDir(repo)}/trains`)).toEqual([]);
    expect(repo.git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });
});

/**
 * The built CLI as a user who is not root (root enters any folder, so a `chmod 000` stops only
 * others): this process's own user when it is not root, else uid 65534 through util-linux's
 * `setpriv`, on a repository given to that user.
 */
function asNonRoot(repoDir: string): (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }> {
  const root = process.getuid?.() === 0;
  if (root) {
    execFileSync('chown', ['-R', '65534:65534', repoDir]);
    // The way in: the test folders above the repository (mkdtemp made them 0700), nothing above them.
    for (let dir = dirname(repoDir); dir.startsWith(testScratchRoot()); dir = dirname(dir)) chmodSync(dir, (statSync(dir).mode & 0o7777) | 0o711);
  }
  const prefix = root ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath] : [process.execPath];
  return (args) =>
    new Promise((resolve) => {
      const [command, ...rest] = prefix as [string, ...string[]];
      const env = { ...process.env, HOME: repoDir, CI: '1', NO_COLOR: '1' };
      execFile(command, [...rest, LAND_BIN, '-C', repoDir, ...args], { env }, (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
}

describe('a gate that leaves a folder nobody may enter (chmod 000)', () => {
  it('costs the next train nothing (no INFRA), and the drains after it run: the drainer takes its folders back', async () => {
    // Every run leaves junk/sub at mode 000; the culprit's runs fail.
    const gate = 'mkdir -p junk/sub && touch junk/sub/f && chmod 000 junk/sub; if [ -e culprit ]; then exit 1; fi';
    const repo = makeRepo({ policy: { target: 'main', gates: [{ name: 'test', run: ['sh', '-c', gate] }], batch: { max: 2 }, sandbox: UNSANDBOXED } });
    repo.branch('good', { 'good.txt': 'good\n' });
    repo.branch('bad', { culprit: 'yes\n' });
    const land = asNonRoot(repo.dir);
    expect((await land(['submit', 'good', 'bad'])).code).toBe(0);
    expect((await land(['window', '--set', '2'])).code).toBe(0);
    const run = await land(['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    expect(events.filter((e) => e.type === 'verdict').map((e) => e.verdict)).not.toContain('INFRA');
    expect(events.at(-1)).toMatchObject({ type: 'summary', failed: [expect.any(String)], landed: [expect.any(String)] });
    const onMain = execFileSync('git', ['-c', 'safe.directory=*', '-C', repo.dir, 'ls-tree', '--name-only', 'main'], { encoding: 'utf8' });
    expect(onMain).toContain('good.txt');
    expect(readdirSync(join(repo.dir, '.git', 'land', 'trains'))).toEqual([]);
    const again = await land(['run']);
    expect(again.code, again.stderr).toBe(0);
  });
});
