// `land prove` end to end: HEAD merged onto the target tip in memory, gates in a throwaway
// worktree, a local proof on PASS (and none on FAIL); the user's checkout is never touched.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../lib/config/index.js';
import { fastPathDecision } from '../../../lib/landing/proofs/fastPath.js';
import { newJobRecord } from '../../../lib/queue/index.js';
import { openStore } from '../../../lib/store/index.js';
import { land } from '../../helpers/cli.js';
import { cleanupTempDirs, makeRepo } from '../../helpers/repo.js';
import { errorLines, stateDir } from '../../helpers/state.js';

afterAll(() => cleanupTempDirs());

const POLICY = { target: 'main', gates: [{ name: 'no-bad-file', run: ['sh', '-c', 'echo checking; test ! -e bad.txt'] }] };

function proofsOf(dir: string): string[] {
  const proofs = join(dir, 'proofs');
  return existsSync(proofs) ? readdirSync(proofs) : [];
}

describe('land prove', () => {
  it('records a local proof of HEAD merged onto the current target tip, without touching the checkout', async () => {
    const repo = makeRepo({ policy: POLICY });
    repo.git('checkout', '-q', '-b', 'feature');
    const head = repo.commit('feature', { 'feature.txt': 'f\n' });
    // The target moves on after the branch was cut: prove merges onto the new tip.
    repo.git('checkout', '-q', 'main');
    const base = repo.commit('main moves', { 'main.txt': 'm\n' });
    repo.git('checkout', '-q', 'feature');
    repo.write('untracked.txt', 'mine\n');

    const result = await land(repo.dir, ['prove', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const out = result.json();
    const tree = repo.git('merge-tree', '--write-tree', 'main', 'feature');
    expect(out).toMatchObject({ verdict: 'PASS', tree, planBaseTree: repo.tip('main^{tree}'), head, base });
    expect(out.gatesHash).toMatch(/^[0-9a-f]{16}$/);
    expect(readFileSync(out.log, 'utf8')).toContain('checking');

    const state = stateDir(repo);
    const proof = JSON.parse(readFileSync(join(state, 'proofs', `${tree}.json`), 'utf8'));
    expect(proof).toMatchObject({
      version: 1,
      tree,
      planBaseTree: repo.tip('main^{tree}'),
      source: 'local',
      verdict: 'PASS',
      logPath: out.log,
      gatesHash: out.gatesHash,
    });
    expect(out.proof).toEqual(proof);
    // The merge it tested exists only as an object: parents are the target tip and HEAD.
    expect(repo.git('rev-list', '--parents', '-n', '1', proof.commit).split(' ').slice(1)).toEqual([base, head]);

    // Nothing moved in the user's repository, and nothing is left behind.
    expect(repo.git('symbolic-ref', 'HEAD')).toBe('refs/heads/feature');
    expect(repo.tip('HEAD')).toBe(head);
    expect(repo.tip('main')).toBe(base);
    expect(repo.git('status', '--porcelain')).toBe('?? untracked.txt');
    expect(
      repo
        .git('worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree ')),
    ).toHaveLength(1);
    expect(readdirSync(join(state, 'trains'))).toEqual([]);
    expect(existsSync(join(state, 'verdicts')) ? readdirSync(join(state, 'verdicts')) : []).toEqual([]);

    // The drainer's fast path accepts it for a job at this tip.
    const store = await openStore(repo.dir);
    const { policy } = await loadPolicy(repo.dir, 'main');
    const job = newJobRecord({ id: 'j-feature', branch: 'feature', tip: head, title: 'feature', submitter: 't', urgent: false });
    expect(await fastPathDecision({ cwd: repo.dir, store, policy, base, baseTree: repo.tip('main^{tree}'), job })).toEqual({
      alone: true,
      source: 'proof',
      tree,
      proofSource: 'local',
    });
  });

  it('records no proof when a gate fails, and says which gate and where the log is', async () => {
    const repo = makeRepo({ policy: POLICY });
    repo.git('checkout', '-q', '-b', 'bad');
    repo.commit('bad', { 'bad.txt': 'b\n' });
    const result = await land(repo.dir, ['prove']);
    expect(result.code).toBe(5);
    const [message] = errorLines(result.stderr);
    expect(message).toMatch(/^land: prove FAIL: gate no-bad-file: exit 1; log \/.*\.log$/);
    expect(proofsOf(stateDir(repo))).toEqual([]);
    expect(readdirSync(join(stateDir(repo), 'trains'))).toEqual([]);

    const json = await land(repo.dir, ['prove', '--json']);
    expect(json.code).toBe(5);
    expect(json.json()).toMatchObject({ verdict: 'FAIL', proof: null });
  });

  it('refuses clearly when HEAD conflicts with the target', async () => {
    const repo = makeRepo({ policy: POLICY });
    repo.git('checkout', '-q', '-b', 'clash');
    repo.commit('clash', { 'README.md': 'theirs\n' });
    repo.git('checkout', '-q', 'main');
    repo.commit('ours', { 'README.md': 'ours\n' });
    repo.git('checkout', '-q', 'clash');
    const result = await land(repo.dir, ['prove']);
    expect(result.code).toBe(5);
    expect(errorLines(result.stderr)[0]).toContain('conflicts with main');
    expect(errorLines(result.stderr)[0]).toContain('README.md');
    expect(proofsOf(stateDir(repo))).toEqual([]);
  });

  it('proves a HEAD that contains the target on its own commit (fast-forward)', async () => {
    const repo = makeRepo({ policy: POLICY });
    repo.git('checkout', '-q', '-b', 'ahead');
    const head = repo.commit('ahead', { 'a.txt': 'a\n' });
    const result = await land(repo.dir, ['prove', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json()).toMatchObject({ verdict: 'PASS', tree: repo.tip('ahead^{tree}'), commit: head });
  });
});
