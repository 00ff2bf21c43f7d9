// Trusted paths (policy `trusted`): the gate machinery comes from the target. A branch that
// rewrites gate.sh to `exit 0` and adds a culprit is failed by main's gate.sh; a branch that
// changes gate.sh honestly lands, and its gate.sh gates the next train. The gate script lives in
// the repository (run: "sh gate.sh") and writes one line per run to a counter outside it:
// its version, and whether ci/extra.sh was present while it ran.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gatesHash, policySchema } from '../../../lib/config/index.js';
import { recordProof } from '../../../lib/landing/proofs/proof.js';
import { openStore } from '../../../lib/store/index.js';
import { land } from '../../helpers/cli.js';
import { jobsById } from '../../helpers/queue.js';
import { cleanupTempDirs, makeRepo, tempDir, type TestRepo } from '../../helpers/repo.js';
import { FAIL_AT_ONCE } from '../../helpers/state.js';
import { runDrain, submitInProcess } from '../../helpers/drainHarness.js';

afterAll(cleanupTempDirs);

const gateV1 = [
  'echo "v1 $(test -e ci/extra.sh && echo extra || echo noextra)" >> "$GATE_COUNTER"',
  'for f in culprit-*; do if [ -e "$f" ]; then echo "found $f: failing"; exit 1; fi; done',
  'echo ok',
  '',
].join('\n');
// The honest new gate: also fails on forbidden-* files.
const gateV2 = ['echo "v2" >> "$GATE_COUNTER"', 'for f in culprit-* forbidden-*; do if [ -e "$f" ]; then echo "found $f: failing"; exit 1; fi; done', ''].join(
  '\n',
);
const evilGate = 'echo evil >> "$GATE_COUNTER"\nexit 0\n';

interface Setup {
  repo: TestRepo;
  counter: string;
  policy: Record<string, unknown>;
  runs(): string[];
}

function setup(trusted: string[] | null = ['gate.sh', 'ci/**']): Setup {
  const counter = join(tempDir('land-scratch-'), 'gate-runs.txt');
  const repo = makeRepo();
  repo.commit('gate', { 'gate.sh': gateV1, 'ci/lint.sh': 'exit 0\n' });
  const policy = {
    target: 'main',
    gates: [{ name: 'test', run: 'sh gate.sh', timeoutSeconds: 60, env: { GATE_COUNTER: counter } }],
    ...FAIL_AT_ONCE,
    ...(trusted ? { trusted } : {}),
  };
  repo.policy(policy);
  const runs = () => (existsSync(counter) ? readFileSync(counter, 'utf8').split('\n').filter(Boolean) : []);
  return { repo, counter, policy, runs };
}

/** Submitted in this process: the trusted paths are what these tests check, not `land submit`. */
async function submit(repo: TestRepo, branch: string): Promise<string> {
  const [id] = await submitInProcess(repo.dir, [branch]);
  return id as string;
}

const SENTENCE = "changes trusted gate.sh: gated with the target's version; takes effect once landed";

// Each test drives several drains through the CLI: a wide timeout for a loaded machine.
describe('trusted paths', { timeout: 240_000 }, () => {
  it("a branch that rewrites gate.sh to exit 0 and adds a culprit is failed by main's gate.sh; main is unchanged", async () => {
    const { repo, runs } = setup();
    const main = repo.tip('main');
    repo.branch('evil', { 'gate.sh': evilGate, 'culprit-1': 'bad\n' });
    const id = await submit(repo, 'evil');

    const run = await land(repo.dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines().at(-1)).toMatchObject({ landed: [], failed: [id] });
    expect(repo.tip('main')).toBe(main);
    // The train, then main itself (before a lone job is failed): main's gate.sh both times.
    expect(runs()).toEqual(['v1 noextra', 'v1 noextra']);
    const job = (await jobsById(repo)).get(id);
    expect(job).toMatchObject({ state: 'failed', reason: 'gate' });
    expect(job.gate?.trusted).toMatchObject({ restored: ['gate.sh'], byJob: { [id]: ['gate.sh'] } });

    const show = await land(repo.dir, ['show', id]);
    expect(show.stdout).toContain(`trusted        ${SENTENCE}`);
    const why = await land(repo.dir, ['why', id]);
    expect(why.code, why.stderr).toBe(0);
    expect(why.stdout).toContain(SENTENCE);
    expect(why.stdout).toContain('found culprit-1: failing');

    // The verdict cache holds the FAIL under the tree that was gated, not under the train's tree.
    const store = await openStore(repo.dir);
    const hash = gatesHash(policySchema.parse(JSON.parse(repo.git('show', 'main:.ctm.json'))).gates);
    const trusted = job.gate?.trusted as { gatedTree: string };
    expect(trusted.gatedTree).not.toBe(job.tree);
    expect(store.getVerdict(trusted.gatedTree, hash)?.verdict).toBe('FAIL');
    expect(store.getVerdict(job.tree as string, hash)).toBeNull();
  });

  // The variants below drain in this process (test/helpers/drainHarness.ts); a stop of null is `land run`'s exit 0.
  it('optimistic clearing never lands that branch: the train built on it ran its gate.sh and passed, which clears nothing', async () => {
    const { repo, policy, runs } = setup();
    // A slower gate.sh, so that the train behind gates beside the head.
    repo.commit('slow gate', { 'gate.sh': `sleep 0.3\n${gateV1}` });
    repo.policy({ ...policy, batch: { max: 1, parallel: 2 }, flaky: { rule: 'retries', clearing: true } });
    repo.branch('evil', { 'gate.sh': evilGate, 'culprit-1': 'x\n' });
    repo.branch('next', { 'next.txt': 'next\n' });
    const evil = await submit(repo, 'evil');
    const next = await submit(repo, 'next');
    const run = await runDrain(repo.dir);
    expect(run.summary).toMatchObject({ landed: [next], failed: [evil] });
    expect(run.of('cleared')).toEqual([]);
    // Said, not silent: the train behind passed, and why that PASS clears nothing.
    expect(run.of('clearing_refused')).toEqual([expect.objectContaining({ why: 'the head changes trusted paths' })]);
    // The train behind ran the head's gate.sh (restored from its base, the head's commit) and passed:
    // the PASS that clearing must not take for the target's.
    expect(runs()).toContain('evil');
    expect(repo.git('show', 'main:gate.sh')).not.toContain('evil');
  });

  it('without a trusted key the same attack lands, as before (the key is what closes it)', async () => {
    const { repo, runs } = setup(null);
    repo.branch('evil', { 'gate.sh': evilGate, 'culprit-1': 'bad\n' });
    const id = await submit(repo, 'evil');
    const run = await runDrain(repo.dir);
    expect(run.summary.stopped).toBeNull();
    expect(run.summary).toMatchObject({ landed: [id], failed: [] });
    expect(runs()).toEqual(['evil']);
  });

  it('an honest change to gate.sh lands as written, was gated by the old gate.sh without its new ci file, and gates the next train', async () => {
    const { repo, runs } = setup();
    const tip = repo.branch('newgate', { 'gate.sh': gateV2, 'ci/extra.sh': 'exit 0\n' });
    const id = await submit(repo, 'newgate');
    const first = await runDrain(repo.dir);
    expect(first.summary.stopped).toBeNull();
    expect(first.summary).toMatchObject({ landed: [id], failed: [] });
    // Gated with main's gate.sh, and ci/extra.sh (added under ci/**) absent while it ran.
    expect(runs()).toEqual(['v1 noextra']);
    // The landed commit is the train's: the new gate.sh and ci/extra.sh are on main.
    expect(repo.git('show', 'main:gate.sh')).toBe(gateV2.trim());
    expect(repo.git('show', 'main:ci/extra.sh')).toBe('exit 0');
    expect(repo.git('merge-base', '--is-ancestor', tip, 'main')).toBe('');
    const show = await land(repo.dir, ['show', id]);
    expect(show.stdout).toContain("trusted        changes trusted ci/extra.sh, gate.sh: gated with the target's version; takes effect once landed");

    // The next train runs the landed gate.sh: a forbidden-* file the old one let through fails.
    repo.branch('sneaky', { 'forbidden-1': 'x\n' });
    const next = await submit(repo, 'sneaky');
    const second = await runDrain(repo.dir);
    expect(second.summary.stopped).toBeNull();
    expect(second.summary).toMatchObject({ landed: [], failed: [next] });
    expect(runs()).toEqual(['v1 noextra', 'v2', 'v2']);
    // A job that changes no trusted path says nothing about them.
    expect((await land(repo.dir, ['show', next])).stdout).not.toContain('trusted');
  });

  it("a PASS cached (or proven) for the tip's own tree, as before trusted, is not reused: the gated tree is judged", async () => {
    const { repo, policy, runs } = setup();
    const main = repo.tip('main');
    repo.branch('evil', { 'gate.sh': evilGate, 'culprit-1': 'bad\n' });
    // What a land without `trusted` recorded: its own gate.sh passed the tip's tree.
    const tree = repo.git('merge-tree', '--write-tree', 'main', 'evil').split('\n')[0] as string;
    const store = await openStore(repo.dir);
    const hash = gatesHash(policySchema.parse(policy).gates);
    const log = join(tempDir(), 'old.log');
    store.putVerdict({
      tree,
      gatesHash: hash,
      verdict: 'PASS',
      reason: null,
      status: null,
      failReason: null,
      seconds: 1,
      train: 'b-old-1',
      log: null,
      at: '2026-01-01T00:00:00Z',
    });
    const id = await submit(repo, 'evil');
    const run = await runDrain(repo.dir);
    expect(run.summary).toMatchObject({ landed: [], failed: [id] });
    expect(repo.tip('main')).toBe(main);
    expect(runs()).toEqual(['v1 noextra', 'v1 noextra']);

    // A local proof of the tip's own tree (land prove before trusted) is refused by name.
    repo.branch('evil2', { 'gate.sh': evilGate, 'culprit-2': 'bad\n' });
    const tree2 = repo.git('merge-tree', '--write-tree', 'main', 'evil2').split('\n')[0] as string;
    writeFileSync(log, '== prove\n'); // a proof counts only while its log exists
    recordProof(store, {
      version: 1,
      tree: tree2,
      planBaseTree: repo.tip('main^{tree}'),
      gatesHash: hash,
      verdict: 'PASS',
      source: 'local',
      commit: repo.tip('evil2'),
      seconds: 1,
      at: '2026-01-01T00:00:00Z',
      logPath: log,
      selection: null,
      tip: repo.tip('evil2'),
    });
    const id2 = await submit(repo, 'evil2');
    const again = await runDrain(repo.dir);
    expect(again.summary).toMatchObject({ landed: [], failed: [id2] });
    expect((await jobsById(repo)).get(id2).fastPath).toMatchObject({ alone: false, refusal: 'trusted_restored', restored: ['gate.sh'] });
    expect(repo.tip('main')).toBe(main);
  });

  it("land prove gates with the target's trusted paths and keys its proof by the gated tree", async () => {
    const { repo, runs } = setup();
    repo.branch('evil', { 'gate.sh': evilGate, 'culprit-1': 'bad\n' });
    repo.git('checkout', '-q', 'evil');
    const failed = await land(repo.dir, ['prove', '--json']);
    expect(failed.code).not.toBe(0);
    expect(runs()).toEqual(['v1 noextra']);

    repo.git('checkout', '-q', 'main');
    repo.branch('newgate', { 'gate.sh': gateV2 });
    repo.git('checkout', '-q', 'newgate');
    const proved = await land(repo.dir, ['prove', '--json']);
    expect(proved.code, proved.stderr).toBe(0);
    const result = proved.json();
    expect(result).toMatchObject({ verdict: 'PASS', restored: ['gate.sh'] });
    expect(result.gatedTree).not.toBe(result.tree);
    // Only gate.sh differs from main, so the gated tree is main's own tree.
    expect(result.gatedTree).toBe(repo.tip('main^{tree}'));
    expect(result.proof.tree).toBe(result.gatedTree);
    expect(runs()).toEqual(['v1 noextra', 'v1 noextra']);
  });

  it('land repro restores the trusted paths as the drainer did, and the failure reproduces', async () => {
    const { repo } = setup();
    repo.branch('evil', { 'gate.sh': evilGate, 'culprit-1': 'bad\n', 'ci/extra.sh': 'exit 0\n' });
    const id = await submit(repo, 'evil');
    expect((await runDrain(repo.dir)).summary.stopped).toBeNull(); // in process: land repro is under test
    const dir = join(tempDir('land-repro-'), 'wt');
    const repro = await land(repo.dir, ['repro', id, '--dir', dir, '--json']);
    expect(repro.code, repro.stderr).toBe(0);
    expect(repro.json()).toMatchObject({ restored: ['ci/extra.sh', 'gate.sh'], treeMatchesTrain: true });
    expect(readFileSync(join(dir, 'gate.sh'), 'utf8')).toBe(gateV1);
    expect(existsSync(join(dir, 'ci', 'extra.sh'))).toBe(false);
    expect(existsSync(join(dir, 'culprit-1'))).toBe(true);
    const text = await land(repo.dir, ['repro', id]);
    expect(text.stdout).toMatch(/trusted\s+ci\/extra\.sh, gate\.sh restored from the base/);
    const rerun = await land(repo.dir, ['repro', id, '--run']);
    expect(rerun.code).toBe(5);
    expect(rerun.stdout).toContain('found culprit-1: failing');
  });
});
