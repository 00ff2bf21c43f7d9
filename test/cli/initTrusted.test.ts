// `land init` proposes `trusted`: the scripts its gates run and the CI folders that exist.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';

afterAll(cleanupTempDirs);

describe('land init and trusted', () => {
  it('proposes the gate script it runs and the ci folder; with neither, an empty list and a hint', async () => {
    const repo = makeRepo();
    repo.commit('machinery', { 'gate.sh': 'exit 0\n', 'ci/lint.sh': 'exit 0\n' });
    const result = await land(repo.dir, ['init', '--gate', 'sh gate.sh', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json().policy.trusted).toEqual(['gate.sh', 'ci/**']);
    expect(JSON.parse(readFileSync(join(repo.dir, '.ctm.json'), 'utf8')).trusted).toEqual(['gate.sh', 'ci/**']);

    const bare = makeRepo();
    const text = await land(bare.dir, ['init']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('trusted: [] (no gate script or CI folder found');
    expect(JSON.parse(readFileSync(join(bare.dir, '.ctm.json'), 'utf8')).trusted).toEqual([]);
  });
});
