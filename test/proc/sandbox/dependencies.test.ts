// The README's quick start under the sandbox: a Node project whose gate is `npm test`, with a real
// dependency installed in the drainer's checkout (not committed). `land init` shows node_modules
// read-only to the gates (docs/sandbox.md#how-a-gate-gets-its-dependencies); the train's fresh
// checkout has none of its own.
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findBwrap } from '../../../lib/proc/sandbox/mechanism.js';
import { land, ROOT } from '../../helpers/cli.js';
import { cleanupTempDirs, makeRepo } from '../../helpers/repo.js';

const HAVE_BWRAP = findBwrap() !== null || process.env.LAND_REQUIRE_SANDBOX === '1';
const NEEDS = 'needs bubblewrap: apt-get install bubblewrap (LAND_REQUIRE_SANDBOX=1 makes its absence a failure)';

afterEach(cleanupTempDirs);

describe.skipIf(!HAVE_BWRAP)(HAVE_BWRAP ? 'a Node project in the sandbox' : `a Node project in the sandbox (${NEEDS})`, () => {
  it('land init, npm ci in the checkout, npm test as the gate: a job that uses the dependency lands, one that breaks it fails', async () => {
    const repo = makeRepo();
    const pkg = { name: 'app', version: '1.0.0', private: true, scripts: { test: 'node test.js' }, dependencies: { picocolors: '1.1.1' } };
    repo.commit('app', {
      'package.json': `${JSON.stringify(pkg, null, 2)}\n`,
      '.gitignore': 'node_modules/\n',
      'test.js':
        "const pc = require('picocolors');\nif (typeof pc.green !== 'function') process.exit(1);\nrequire('./lib.js');\nconsole.log(pc.green('ok'));\n",
      'lib.js': 'module.exports = 1;\n',
    });
    // "npm ci": the dependency installed in the drainer's checkout, as the registry would give it.
    cpSync(join(ROOT, 'node_modules', 'picocolors'), join(repo.dir, 'node_modules', 'picocolors'), { recursive: true });
    const init = await land(repo.dir, ['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(repo.dir, '.ctm.json'), 'utf8')).sandbox).toEqual({ readOnly: ['node_modules'] });
    repo.commit('land policy');
    repo.branch('feature', { 'feature.txt': 'x\n' });
    repo.branch('broken', { 'lib.js': 'throw new Error("broken");\n' });
    expect((await land(repo.dir, ['submit', 'feature', 'broken'])).code).toBe(0);
    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('sandbox: OFF');
    const summary = run.lines().at(-1);
    expect(summary.landed).toHaveLength(1);
    expect(summary.failed).toHaveLength(1);
    expect(repo.git('log', '--format=%s', '-1', 'main')).not.toContain('broken');
  });
});
