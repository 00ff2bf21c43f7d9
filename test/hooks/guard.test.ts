// The decision before each landing, as plain values: would land's hook protecting the target run?
// Every way it would not (the hooks folder moved away from it or back, the file removed, changed
// or not executable) is named in one line; the drain's end-to-end tests are test/hooks/guardRun.test.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { protectHookCheck, protectHookProblem, sha256Of, type HookFacts } from '../../lib/hooks/guard.js';
import { openStore } from '../../lib/store/index.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

const HOOKS = '/repo/.git/hooks';
const TEXT = '#!/bin/sh\n# land-managed-hook\n';

function facts(extra: Partial<HookFacts> = {}): HookFacts {
  return {
    target: 'main',
    installed: { dir: HOOKS, sha256: sha256Of(TEXT) },
    effectiveDir: HOOKS,
    defaultDir: HOOKS,
    file: { sha256: sha256Of(TEXT), executable: true },
    ...extra,
  };
}

describe('protectHookProblem', () => {
  it('finds none when git runs hooks from where the hook was installed and the file is as written', () => {
    expect(protectHookProblem(facts())).toBeNull();
    const custom = { dir: '/repo/.githooks', sha256: sha256Of(TEXT) };
    expect(protectHookProblem(facts({ installed: custom, effectiveDir: '/repo/.githooks' }))).toBeNull();
  });

  it('names core.hooksPath pointing away from the installed folder, and how to undo it', () => {
    expect(protectHookProblem(facts({ effectiveDir: '/dev/null' }))).toBe(
      `core.hooksPath now points at /dev/null: land's hook in ${HOOKS} would not run; remove the setting or run \`land hooks install\` again`,
    );
    const custom = { dir: '/repo/.githooks', sha256: sha256Of(TEXT) };
    expect(protectHookProblem(facts({ installed: custom, effectiveDir: '/elsewhere' }))).toBe(
      "core.hooksPath now points at /elsewhere: land's hook in /repo/.githooks would not run; set it back to /repo/.githooks or run `land hooks install` again",
    );
    // Installed into a core.hooksPath folder, then the setting removed: git runs the default folder.
    expect(protectHookProblem(facts({ installed: custom }))).toBe(
      `core.hooksPath no longer points at /repo/.githooks: git runs hooks from ${HOOKS}, so land's hook in /repo/.githooks would not run; set it back or run \`land hooks install\` again`,
    );
  });

  it('names a hook file removed, changed (even keeping the marker line) or no longer executable', () => {
    const path = `${HOOKS}/reference-transaction`;
    expect(protectHookProblem(facts({ file: null }))).toBe(
      `land's hook ${path} was removed: main is not protected; run \`land hooks install\` again (or \`land hooks uninstall\` to land without it)`,
    );
    expect(protectHookProblem(facts({ file: { sha256: sha256Of(`${TEXT}exit 0\n`), executable: true } }))).toBe(
      `${path} is not the hook \`land hooks install\` wrote (it was changed): main may not be protected; run \`land hooks install --force\` again (or \`land hooks uninstall\` to land without it)`,
    );
    expect(protectHookProblem(facts({ file: { sha256: sha256Of(TEXT), executable: false } }))).toBe(
      `${path} is not executable: git would not run it, so main is not protected; run \`land hooks install\` again`,
    );
  });

  it('reports the folder first: a moved hooks folder is what changed, whatever the old folder holds', () => {
    expect(protectHookProblem(facts({ effectiveDir: '/dev/null', file: null }))).toMatch(/^core\.hooksPath now points at \/dev\/null/);
  });
});

describe('protectHookCheck', () => {
  it('checks nothing without an install record; an unreadable record is a problem, never "not installed"', async () => {
    const repo = makeRepo();
    const store = await openStore(repo.dir);
    expect(await protectHookCheck(repo.dir, store, 'main')).toBeNull();
    const record = join(repo.dir, '.git', 'land', 'hooks.json');
    writeFileSync(record, '{"dir": 3}');
    const problem = await protectHookCheck(repo.dir, store, 'main');
    expect(problem).toContain(`the record of land's hook ${record} is unreadable (`);
    expect(problem).toContain('run `land hooks install` again');
  });
});
