// A regression guard on the git processes a drain starts (each costs ~8 ms of process start-up
// here): a PATH shim in front of git logs every call, and the count per train (and per member of a
// wide train) must stay under a bound the older code exceeded (13-14 per lone train, then 7, 3 per
// member). A lone train now: merge-tree, commit-tree, the slot worktree's clean and checkout, the
// landing's update-ref (the target's tip and policy are lines to the drain's cat-file).
// Counts, not timings: the figure in milliseconds is the benchmark's (npm run bench, part b).
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo, tempDir } from '../helpers/repo.js';
import { BASIC_POLICY } from '../helpers/state.js';

afterAll(cleanupTempDirs);

const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

/** A folder holding a `git` that appends its argv to `log`, then runs the real git. */
function gitShim(): { bin: string; log: string } {
  const bin = tempDir('land-shim-');
  const log = join(bin, 'calls.log');
  writeFileSync(log, '');
  const script = join(bin, 'git');
  writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realGit}' "$@"\n`);
  chmodSync(script, 0o755);
  return { bin, log };
}

/** A repository with `n` one-file branches submitted, the window at `max`. */
async function queued(n: number, max: number) {
  const repo = makeRepo({ policy: { ...BASIC_POLICY, batch: { max } } });
  for (let i = 1; i <= n; i += 1) repo.branch(`b${i}`, { [`file-${i}.txt`]: `line ${i}\n` });
  // The target checked out nowhere (as on a server): the landing has no checkout to move.
  repo.git('checkout', '-q', '--detach');
  const submit = await land(repo.dir, ['submit', ...Array.from({ length: n }, (_, i) => `b${i + 1}`)]);
  expect(submit.code, submit.stderr).toBe(0);
  expect((await land(repo.dir, ['window', '--set', String(max)])).code).toBe(0);
  return repo;
}

/** `land run` with every git call logged: the summary and the calls. */
async function countedRun(dir: string) {
  const shim = gitShim();
  const run = await land(dir, ['run', '--json'], { env: { PATH: `${shim.bin}:${process.env.PATH ?? ''}` } });
  expect(run.code, run.stderr).toBe(0);
  const calls = readFileSync(shim.log, 'utf8').split('\n').filter(Boolean);
  return { summary: run.lines().at(-1), calls };
}

describe('git processes per train', () => {
  it('a drain of lone trains starts at most 5 git processes per train (plus 6 for the drain)', async () => {
    const repo = await queued(3, 1);
    const { summary, calls } = await countedRun(repo.dir);
    expect(summary).toMatchObject({ type: 'summary', trains: 3, landed: expect.any(Array) });
    expect(summary.landed).toHaveLength(3);
    expect(calls.length, calls.join('\n')).toBeLessThanOrEqual(6 + 5 * 3);
  });

  it('a wide train starts at most 2 git processes per member, and 5 for the train', async () => {
    const repo = await queued(4, 4);
    const { summary, calls } = await countedRun(repo.dir);
    expect(summary).toMatchObject({ type: 'summary', trains: 1 });
    expect(summary.landed).toHaveLength(4);
    expect(calls.length, calls.join('\n')).toBeLessThanOrEqual(6 + 5 + 2 * 4);
  });
});
