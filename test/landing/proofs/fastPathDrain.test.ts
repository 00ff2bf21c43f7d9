import { afterAll, describe, expect, it } from 'vitest';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs, sh, tempDir } from '../../helpers/repo.js';
import { gateScript, jobsById, makeQueueRepo, submitBranches } from '../../helpers/queue.js';
import { runDrain, submitInProcess } from '../../helpers/drainHarness.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

afterAll(cleanupTempDirs);

/** Proves `branch` from a separate worktree, as a pre-push hook would. */
async function prove(repoDir: string, branch: string) {
  const wt = join(tempDir('land-prove-'), 'wt');
  sh(repoDir, ['worktree', 'add', '-q', wt, branch]);
  const result = await land(wt, ['prove', '--json']);
  sh(repoDir, ['worktree', 'remove', '--force', wt]);
  return result;
}

// The first test runs `land submit` and `land run` through the CLI; the other fast-path and
// selection variants submit and drain in this process (test/helpers/drainHarness.ts: a stop of null
// is `land run`'s exit 0) and still read `land show` through the CLI.
describe('proofs and the fast path in the drain', () => {
  it('lands a proven tip alone with no gate run, even with a full queue behind it', async () => {
    const repo = makeQueueRepo();
    repo.branch('proven', { 'proven.txt': 'proven\n' });
    const proof = await prove(repo.dir, 'proven');
    expect(proof.code, proof.stderr).toBe(0);
    expect(repo.gateRuns()).toBe(1); // the prove run itself
    const [provenId] = (await land(repo.dir, ['submit', 'proven', '--json'])).lines().map((l) => l.job.id);
    const others = await submitBranches(repo, 5);

    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const events = run.lines();
    expect(events.find((e) => e.type === 'fast_path')).toMatchObject({ job: provenId, source: 'proof:local' });
    const trains = events.filter((e) => e.type === 'train_built');
    expect(trains[0].members).toEqual([provenId]);
    expect(trains[1].members).toEqual(others);
    // One more gate run in all: the train of the five others. The proven job ran none.
    expect(repo.gateRuns()).toBe(2);
    const jobs = await jobsById(repo);
    expect(jobs.get(provenId)).toMatchObject({ state: 'landed', gate: { mode: 'cached', source: 'proof' } });
    const show = await land(repo.dir, ['show', provenId as string]);
    expect(show.stdout).toMatch(/fast path\s+lands alone without a gate: local proof/);
  });

  it('gates the same tip normally once the target has moved, and says why', async () => {
    const repo = makeQueueRepo();
    repo.branch('late', { 'late.txt': 'late\n' });
    expect((await prove(repo.dir, 'late')).code).toBe(0);
    await submitBranches(repo, 1, [], 'first');
    expect((await runDrain(repo.dir)).summary.stopped).toBeNull(); // the target moves
    const [lateId] = await submitInProcess(repo.dir, ['late']);
    const before = repo.gateRuns();
    const run = await runDrain(repo.dir);
    expect(run.summary.stopped).toBeNull();
    expect(run.events.some((e) => e.type === 'fast_path')).toBe(false);
    expect(repo.gateRuns()).toBe(before + 1);
    const job = (await jobsById(repo)).get(lateId as string);
    expect(job.state).toBe('landed');
    expect(job.fastPath).toMatchObject({ alone: false, refusal: 'target_moved' });
    expect((await land(repo.dir, ['show', lateId as string])).stdout).toMatch(/gated \(target_moved\)/);
  });

  it('ignores local proofs when proof.trustLocal is false', async () => {
    const repo = makeQueueRepo({ policy: { proof: { trustLocal: false } } });
    repo.branch('local', { 'local.txt': 'x\n' });
    expect((await prove(repo.dir, 'local')).code).toBe(0);
    const [id] = await submitInProcess(repo.dir, ['local']);
    expect((await runDrain(repo.dir)).summary.stopped).toBeNull();
    expect(repo.gateRuns()).toBe(2);
    expect((await jobsById(repo)).get(id as string).fastPath).toMatchObject({ refusal: 'untrusted_source' });
  });

  it('does not gate an identical tree twice: a change re-submitted after a revert lands on the cached PASS', async () => {
    const repo = makeQueueRepo();
    await submitBranches(repo, 1, [], 'feature');
    expect((await runDrain(repo.dir)).summary.stopped).toBeNull();
    expect(repo.gateRuns()).toBe(1);
    // Revert the landing on main (a plain commit, as a maintainer would), then submit the same
    // change again on a new branch from the reverted main: the merged tree is the one already gated.
    repo.git('checkout', '-q', 'main');
    repo.git('revert', '--no-edit', '-m', '1', 'HEAD');
    repo.branch('again', { 'file-feature1.txt': 'feature1\n' });
    const [id] = await submitInProcess(repo.dir, ['again']);
    const run = await runDrain(repo.dir);
    expect(run.summary.stopped).toBeNull();
    expect(run.events.find((e) => e.type === 'fast_path')).toMatchObject({ job: id, source: 'cache' });
    expect(repo.gateRuns()).toBe(1);
    expect((await jobsById(repo)).get(id as string).state).toBe('landed');
  });
});

describe('selective gates and refresh entries in the drain', () => {
  it('runs only the docs gate for a docs-only train and records the selection', async () => {
    const scratch = tempDir('land-select-');
    const testRuns = join(scratch, 'test-runs');
    const docsRuns = join(scratch, 'docs-runs');
    const repo = makeQueueRepo({
      policy: {
        gates: [
          { name: 'test', run: ['sh', gateScript('counted.sh')], paths: ['src/**'], env: { GATE_COUNTER: testRuns } },
          { name: 'docs', run: ['sh', gateScript('counted.sh')], paths: ['docs/**'], env: { GATE_COUNTER: docsRuns } },
        ],
      },
    });
    // A first train touching both records a PASS of both gates on the target.
    repo.branch('both', { 'src/a.ts': 'a\n', 'docs/a.md': 'a\n' });
    await submitInProcess(repo.dir, ['both']);
    expect((await runDrain(repo.dir)).summary.stopped).toBeNull();
    const count = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').length : 0);
    expect([count(testRuns), count(docsRuns)]).toEqual([1, 1]);

    repo.branch('docs-only', { 'docs/b.md': 'b\n' });
    const [id] = await submitInProcess(repo.dir, ['docs-only']);
    expect((await runDrain(repo.dir)).summary.stopped).toBeNull();
    expect([count(testRuns), count(docsRuns)]).toEqual([1, 2]);
    const job = (await jobsById(repo)).get(id as string);
    expect(job.state).toBe('landed');
    // toMatchObject matches arrays whole: exactly one cached gate, and it is test.
    expect(job.gate).toMatchObject({ mode: 'selective', selected: ['docs'], executed: ['docs'], cached: [{ gate: 'test' }] });
    expect((await land(repo.dir, ['show', id as string])).stdout).toMatch(/gate\s+cached test \(PASS at [0-9a-f]{12}\)/);
  });

  it('commits a refresh entry on the train before the gates, and fails the train when it fails', async () => {
    const repo = makeQueueRepo({
      policy: {
        refresh: [
          {
            paths: ['package.json'],
            run: 'if grep -q broken package.json; then exit 3; fi; wc -c < package.json > package.lock',
            message: 'refresh package.lock',
          },
        ],
      },
    });
    repo.branch('deps', { 'package.json': '{"name":"x"}\n' });
    const [good] = await submitInProcess(repo.dir, ['deps']);
    expect((await runDrain(repo.dir)).summary.stopped).toBeNull();
    expect(repo.git('show', 'main:package.lock').trim()).toBe('13');
    expect(repo.git('log', '-1', '--format=%s', 'main')).toBe('refresh package.lock');
    expect((await jobsById(repo)).get(good as string).state).toBe('landed');

    repo.branch('bad-deps', { 'package.json': '{"name":"broken"}\n' }, 'main');
    const [bad] = await submitInProcess(repo.dir, ['bad-deps']);
    expect((await runDrain(repo.dir)).summary.stopped).toBeNull();
    expect((await jobsById(repo)).get(bad as string)).toMatchObject({ state: 'failed', reason: 'refresh' });
  });
});
