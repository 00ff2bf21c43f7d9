// The remote row counts fetches and pushes through a PATH shim that logs git's subcommand. land
// runs some git commands with `-c name=value` first (a fetch sets core.filesRefLockTimeout), so
// the shim must log the subcommand past those options, not git's first argument.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { shimDir } from '../../bench/remote.js';
import { cleanupTempDirs, makeRepo, tempDir } from '../helpers/repo.js';

afterAll(cleanupTempDirs);

it('logs the subcommand past -c and -C options, and git still runs with every argument', () => {
  const repo = makeRepo();
  const shim = shimDir(tempDir('land-shim-'));
  const run = (...args: string[]) => execFileSync(join(shim.dir, 'git'), args, { cwd: repo.dir, encoding: 'utf8' }).trim();
  expect(run('-c', 'core.filesRefLockTimeout=500', 'config', 'core.filesRefLockTimeout')).toBe('500');
  expect(run('-c', 'land.x=1', 'config', '--get', 'land.x')).toBe('1');
  expect(run('-C', repo.dir, '--no-pager', 'rev-parse', '--is-inside-work-tree')).toBe('true');
  expect(run('fetch', '--quiet', '.', 'main')).toBe('');
  expect(readFileSync(shim.log, 'utf8').split('\n').filter(Boolean)).toEqual(['config', 'config', 'rev-parse', 'fetch']);
});
