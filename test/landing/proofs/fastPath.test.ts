// The one fast-path decision, on real repositories and a real QueueStore in .git/land.
import { rmSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { gatesHash, policySchema, type Policy, type PolicyInput } from '../../../lib/config/index.js';
import { fastPathDecision } from '../../../lib/landing/proofs/fastPath.js';
import { recordProof, type Proof } from '../../../lib/landing/proofs/proof.js';
import { newJobRecord } from '../../../lib/queue/index.js';
import { openStore, type QueueStore } from '../../../lib/store/index.js';
import { cleanupTempDirs, makeRepo, tempDir, type TestRepo } from '../../helpers/repo.js';

afterAll(() => cleanupTempDirs());

const GATES = [{ name: 'test', run: ['true'] }];

function policyOf(input: Partial<PolicyInput> = {}): Policy {
  return policySchema.parse({ target: 'main', gates: GATES, ...input });
}

interface Setup {
  repo: TestRepo;
  store: QueueStore;
  base: string;
  baseTree: string;
}

async function setup(): Promise<Setup> {
  const repo = makeRepo({ policy: { target: 'main', gates: GATES } });
  repo.commit('more on main', { 'main.txt': 'main\n' });
  const store = await openStore(repo.dir);
  const base = repo.tip('main');
  return { repo, store, base, baseTree: repo.tip('main^{tree}') };
}

function job(repo: TestRepo, branch: string) {
  return newJobRecord({ id: `j-${branch}`, branch, tip: repo.tip(branch), title: branch, submitter: 't', urgent: false });
}

function mergedTree(repo: TestRepo, branch: string): string {
  return repo.git('merge-tree', '--write-tree', 'main', branch).split('\n')[0] as string;
}

function localProof(s: Setup, tree: string, overrides: Partial<Proof> = {}): Proof {
  const logPath = `${tempDir()}/prove.log`;
  writeFileSync(logPath, '== prove\n');
  const proof: Proof = {
    version: 1,
    tree,
    planBaseTree: s.baseTree,
    gatesHash: gatesHash(policyOf().gates),
    verdict: 'PASS',
    source: 'local',
    commit: s.base,
    seconds: 1,
    at: new Date().toISOString(),
    logPath,
    selection: null,
    ...overrides,
  };
  recordProof(s.store, proof);
  return proof;
}

describe('fastPathDecision', () => {
  it('refuses with no_pass when neither the cache nor a proof knows the merged tree', async () => {
    const s = await setup();
    s.repo.branch('feature', { 'f.txt': 'f\n' }, 'main~1');
    const decision = await fastPathDecision({
      cwd: s.repo.dir,
      store: s.store,
      policy: policyOf(),
      base: s.base,
      baseTree: s.baseTree,
      job: job(s.repo, 'feature'),
    });
    expect(decision).toEqual({ alone: false, refusal: 'no_pass', tree: mergedTree(s.repo, 'feature') });
  });

  it('refuses with conflict and no tree when the tip conflicts with the target', async () => {
    const s = await setup();
    s.repo.branch('clash', { 'main.txt': 'other\n' }, 'main~1');
    const decision = await fastPathDecision({
      cwd: s.repo.dir,
      store: s.store,
      policy: policyOf(),
      base: s.base,
      baseTree: s.baseTree,
      job: job(s.repo, 'clash'),
    });
    expect(decision).toEqual({ alone: false, refusal: 'conflict', tree: null });
  });

  it('lands alone on a cached PASS of the merged tree; a cached FAIL refuses', async () => {
    const s = await setup();
    s.repo.branch('feature', { 'f.txt': 'f\n' }, 'main~1');
    const tree = mergedTree(s.repo, 'feature');
    const hash = gatesHash(policyOf().gates);
    const opts = { cwd: s.repo.dir, store: s.store, policy: policyOf(), base: s.base, baseTree: s.baseTree, job: job(s.repo, 'feature') };
    s.store.putVerdict({ tree, gatesHash: hash, verdict: 'PASS', reason: null, seconds: 1, at: 'now', train: 'b-1', log: null });
    expect(await fastPathDecision(opts)).toEqual({ alone: true, source: 'cache', tree });
    s.store.putVerdict({ tree, gatesHash: hash, verdict: 'FAIL', reason: 'test', seconds: 1, at: 'now', train: 'b-2', log: null });
    localProof(s, tree);
    expect(await fastPathDecision(opts)).toEqual({ alone: false, refusal: 'cached_fail', tree });
    // A PASS under other gates is not this PASS.
    const other = { ...opts, policy: policyOf({ gates: [{ name: 'lint', run: ['true'] }] }) };
    expect(await fastPathDecision(other)).toMatchObject({ alone: false, refusal: 'gates_changed' });
  });

  it('lands alone on an accepted local proof, and names every refusal', async () => {
    const s = await setup();
    s.repo.branch('feature', { 'f.txt': 'f\n' }, 'main~1');
    const tree = mergedTree(s.repo, 'feature');
    const opts = { cwd: s.repo.dir, store: s.store, policy: policyOf(), base: s.base, baseTree: s.baseTree, job: job(s.repo, 'feature') };
    const proof = localProof(s, tree);
    expect(await fastPathDecision(opts)).toEqual({ alone: true, source: 'proof', tree, proofSource: 'local' });

    expect(await fastPathDecision({ ...opts, policy: policyOf({ proof: { trustLocal: false } }) })).toEqual({
      alone: false,
      refusal: 'untrusted_source',
      tree,
    });
    expect(await fastPathDecision({ ...opts, policy: policyOf({ proof: { enabled: false } }) })).toEqual({ alone: false, refusal: 'proofs_disabled', tree });
    expect(await fastPathDecision({ ...opts, policy: policyOf({ gates: [{ name: 'test', run: ['false'] }] }) })).toEqual({
      alone: false,
      refusal: 'gates_changed',
      tree,
    });

    localProof(s, tree, { planBaseTree: s.repo.tip('main~1^{tree}') });
    expect(await fastPathDecision(opts)).toEqual({ alone: false, refusal: 'target_moved', tree });

    rmSync(proof.logPath as string);
    localProof(s, tree, { logPath: proof.logPath });
    expect(await fastPathDecision(opts)).toEqual({ alone: false, refusal: 'log_missing', tree });
    localProof(s, tree, { logPath: null });
    expect(await fastPathDecision(opts)).toEqual({ alone: false, refusal: 'log_missing', tree });

    writeFileSync(`${s.store.root}/proofs/${tree}.json`, '{"version": 1');
    expect(await fastPathDecision(opts)).toEqual({ alone: false, refusal: 'corrupt', tree });
  });

  it('accepts a train proof even when local proofs are not trusted', async () => {
    const s = await setup();
    s.repo.branch('feature', { 'f.txt': 'f\n' }, 'main~1');
    const tree = mergedTree(s.repo, 'feature');
    localProof(s, tree, { source: 'train' });
    const decision = await fastPathDecision({
      cwd: s.repo.dir,
      store: s.store,
      policy: policyOf({ proof: { trustLocal: false } }),
      base: s.base,
      baseTree: s.baseTree,
      job: job(s.repo, 'feature'),
    });
    expect(decision).toEqual({ alone: true, source: 'proof', tree, proofSource: 'train' });
  });

  it('uses the tip tree for a tip that contains the target (fast-forward)', async () => {
    const s = await setup();
    const tip = s.repo.branch('ahead', { 'a.txt': 'a\n' });
    const tree = s.repo.tip(`${tip}^{tree}`);
    localProof(s, tree);
    const decision = await fastPathDecision({
      cwd: s.repo.dir,
      store: s.store,
      policy: policyOf(),
      base: s.base,
      baseTree: s.baseTree,
      job: job(s.repo, 'ahead'),
    });
    expect(decision).toEqual({ alone: true, source: 'proof', tree, proofSource: 'local' });
  });

  it('refuses a local proof of a change that triggers a refresh entry (prove does not run them)', async () => {
    const s = await setup();
    s.repo.branch('deps', { 'package.json': '{"v":2}\n' }, 'main~1');
    s.repo.branch('docs', { 'README.md': '# docs\n' }, 'main~1');
    const refresh = { refresh: [{ paths: ['package.json'], run: 'true', message: 'refresh lock' }] };
    for (const branch of ['deps', 'docs']) localProof(s, mergedTree(s.repo, branch));
    const decide = (branch: string, extra: Partial<PolicyInput>) =>
      fastPathDecision({ cwd: s.repo.dir, store: s.store, policy: policyOf(extra), base: s.base, baseTree: s.baseTree, job: job(s.repo, branch) });
    expect(await decide('deps', refresh)).toMatchObject({ alone: false, refusal: 'refresh_pending' });
    expect(await decide('docs', refresh)).toMatchObject({ alone: true, source: 'proof' });
    expect(await decide('deps', {})).toMatchObject({ alone: true, source: 'proof' });
  });
});
