// `npm pack` and `npm install -g ./land-*.tgz`, as docs/team.md's CI does: the tarball holds the
// bundled CLI (which needs no other package: the install works offline) and docs/, every help's
// "Docs:" line names a page of the installed package, every link between the installed pages
// resolves, and the installed `land` lands a branch.
// Packs the dist/ of `npm run build` (--ignore-scripts skips the prepack build); needs only Node,
// npm and git.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { brokenRelativeLinks } from '../helpers/docsLinks.js';
import { cleanupTempDirs, makeRepo, tempDir } from '../helpers/repo.js';

afterAll(cleanupTempDirs);

/** npm with none of the outer npm's settings (npm test sets npm_config_*), its cache in `cache`. */
function npm(args: string[], cwd: string, cache: string): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  return execFileSync('npm', [...args, '--cache', cache, '--offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd, env, encoding: 'utf8' });
}

it('npm pack + npm install -g: an offline install with its docs, help pointing into them, and a landing', () => {
  const scratch = tempDir('land-pack-');
  const cache = join(scratch, 'npm-cache');
  const [packed] = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], ROOT, cache)) as {
    filename: string;
    files: { path: string }[];
  }[];
  const files = packed!.files.map((file) => file.path);
  expect(files).toEqual(expect.arrayContaining(['dist/bin/land.js', 'docs/README.md', 'docs/team.md', 'README.md', 'package.json']));
  expect(files.filter((path) => path.endsWith('.map') || path.startsWith('dist/lib/') || path.startsWith('test/'))).toEqual([]);

  const prefix = join(scratch, 'prefix');
  npm(['install', '-g', '--prefix', prefix, join(scratch, packed!.filename)], scratch, cache);
  const installed = realpathSync(join(prefix, 'lib', 'node_modules', 'land'));
  const bin = join(prefix, 'bin', 'land');

  for (const args of [['--help'], ['submit', '--help'], ['config', 'schema', '--help']]) {
    const help = execFileSync(bin, args, { encoding: 'utf8' });
    const pointer = help.trimEnd().split('\n').at(-1)!;
    expect(pointer.startsWith(`Docs: ${join(installed, 'docs')}/`), pointer).toBe(true);
    expect(existsSync(pointer.slice('Docs: '.length).split('#')[0]!), pointer).toBe(true);
  }

  // Every relative link of the installed pages resolves inside the package (a page or heading it lacks: a dead link).
  const pages = files.filter((path) => path.endsWith('.md'));
  expect(pages).toContain('BENCHMARKS.md'); // README and docs link to it
  expect(pages.flatMap((page) => brokenRelativeLinks(installed, page))).toEqual([]);

  const repo = makeRepo({ policy: { target: 'main', gates: [{ name: 'test', run: ['true'] }] } });
  repo.branch('feature', { 'feature.txt': 'a feature\n' });
  repo.git('checkout', '-q', '--detach');
  execFileSync(bin, ['submit', 'feature'], { cwd: repo.dir, encoding: 'utf8' });
  const run = spawnSync(bin, ['run'], { cwd: repo.dir, encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  expect(repo.git('show', 'main:feature.txt')).toBe('a feature');
});
