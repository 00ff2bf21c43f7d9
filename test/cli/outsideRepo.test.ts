// Outside a git repository every command stops before doing anything, with one line naming the
// folder and the usage exit status (2); git's own text is not shown. `land batch` is the exception:
// it runs anywhere (the policy's defaults apply).
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo, tempDir } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

/** A folder git cannot find a repository from: the ceiling stops its search above the folder. */
function notARepository(): { dir: string; env: Record<string, string> } {
  const dir = tempDir('land-norepo-');
  return { dir, env: { GIT_CEILING_DIRECTORIES: dirname(dir) } };
}

const COMMANDS: string[][] = [
  ['status'],
  ['show', 'j-20261130-0001'],
  ['submit', 'feature'],
  ['submit', '--json', 'feature'],
  ['config'],
  ['config', '--json'],
  ['run'],
  ['window'],
  ['cancel', 'j-20261130-0001'],
  ['retry', 'j-20261130-0001'],
  ['prove'],
  ['init'],
  ['hooks', 'install'],
  ['hooks', 'pre-receive'],
  ['ledger', 'show', '--job', 'gen'],
  ['why', 'j-20261130-0001'],
  ['log', 'j-20261130-0001'],
  ['repro', 'j-20261130-0001'],
  ['stats'],
  ['flaky'],
];

describe('outside a git repository', () => {
  it('every command exits 2 with "land: not inside a git repository: <dir>" and nothing else', async () => {
    const { dir, env } = notARepository();
    const results = await Promise.all(COMMANDS.map((args) => land(dir, args, { env })));
    results.forEach((result, i) => {
      const what = `land ${COMMANDS[i]!.join(' ')}`;
      expect(result.code, `${what}: ${result.stderr}`).toBe(2);
      expect(result.stderr, what).toBe(`land: not inside a git repository: ${dir}\n`);
      expect(result.stdout, what).toBe('');
    });
  });

  it('names the folder -C points at, and a subfolder is named as given', async () => {
    const { dir, env } = notARepository();
    const sub = join(dir, 'a', 'b');
    mkdirSync(sub, { recursive: true });
    const here = makeRepo();
    const viaC = await land(here.dir, ['-C', sub, 'submit', 'feature'], { env });
    expect(viaC.code).toBe(2);
    expect(viaC.stderr).toBe(`land: not inside a git repository: ${sub}\n`);
    // The same command inside a repository gets past the check (and fails for its own reason).
    const inside = await land(here.dir, ['submit', 'no-such-branch'], { env });
    expect(inside.stderr).not.toContain('not inside a git repository');
  });

  it('land batch still runs outside a repository (no lane configured: exit 3, its own code)', async () => {
    const { dir, env } = notARepository();
    const result = await land(dir, ['batch', '--job', 'gen', '--measure-dir', 'm', '--', 'true'], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('no lane');
    expect(result.stderr).not.toContain('not inside a git repository');
  });
});

describe('land completion outside a repository', () => {
  it('prints its script (installed once, used everywhere) and offers no job ids', async () => {
    const { dir, env } = notARepository();
    const script = await land(dir, ['completion', 'bash'], { env });
    expect(script.code, script.stderr).toBe(0);
    expect(script.stdout).toContain('complete');
    const ids = await land(dir, ['completion', '--ids', 'retry'], { env });
    expect(ids.code, ids.stderr).toBe(0);
    expect(ids.stdout).toBe('');
  });
});
