// `land init` on a repository whose branch is `master`: the policy names master, and the queue works.
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';

afterAll(cleanupTempDirs);

describe('land init on a master repository', () => {
  it('writes target master, records it in land.target, and a submitted branch lands on master', async () => {
    const repo = makeRepo();
    repo.git('branch', '-m', 'main', 'master');
    const init = await land(repo.dir, ['init', '--gate', 'true']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('target: master (the checked-out branch); set git config land.target master');
    expect(repo.git('config', '--get', 'land.target')).toBe('master');
    repo.commit('land policy', {});
    const tip = repo.branch('feature', { 'feature.txt': 'new\n' }, 'master');

    expect((await land(repo.dir, ['submit', 'feature'])).code).toBe(0);
    const run = await land(repo.dir, ['run']);
    expect(run.code, run.stderr).toBe(0);
    expect(repo.git('merge-base', '--is-ancestor', tip, 'master')).toBe('');
    expect(repo.git('show', 'master:feature.txt')).toBe('new');
    expect(repo.git('branch', '--list', 'main')).toBe('');
  });

  it('--json says whether init set git config land.target, and its value', async () => {
    const master = makeRepo();
    master.git('branch', '-m', 'main', 'master');
    const set = await land(master.dir, ['init', '--json', '--gate', 'true']);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({
      targetWhy: 'the checked-out branch',
      landTarget: { set: true, value: 'master' },
      policy: { target: 'master' },
    });
    const main = makeRepo();
    const unset = await land(main.dir, ['init', '--json', '--gate', 'true']);
    expect(JSON.parse(unset.stdout)).toMatchObject({ landTarget: { set: false, value: null }, policy: { target: 'main' } });
  });
});
