// `npm run -s bench -- --json` must print one JSON object on stdout and nothing else (progress goes
// to stderr; the build before it is quiet: scripts/bundle.mjs). The smallest real run: the quick
// start-up part alone (a few seconds); the whole benchmark takes minutes and is not run here.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

it('bench --json writes only its JSON object to stdout, and its progress to stderr', () => {
  const result = spawnSync(process.execPath, [join(ROOT, 'dist', 'bench', 'run.js'), '--quick', '--only', 'startup', '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(result.status).toBe(0);
  const report = JSON.parse(result.stdout) as { command: string; startup: { runs: number; versionMs: number } };
  expect(report.command).toBe('npm run bench -- --quick --only startup --json');
  expect(report.startup.runs).toBe(3);
  expect(report.startup.versionMs).toBeGreaterThan(0);
  expect(result.stderr).toMatch(/^bench: working in .*\n[\s\S]*bench: total /);
});
