// Selective gates and trusted paths: a change to a trusted path is not what the gates see (they
// get the target's version), so it selects no gate in its own train.
import { afterAll, describe, expect, it } from 'vitest';
import { policySchema } from '../../../lib/config/index.js';
import { gatedTreeOf } from '../../../lib/landing/gates/trusted.js';
import { gateHash, selectGates } from '../../../lib/landing/gates/selection.js';
import { openStore } from '../../../lib/store/index.js';
import { cleanupTempDirs, makeRepo } from '../../helpers/repo.js';

afterAll(cleanupTempDirs);

describe('selection with trusted paths', () => {
  it('a train that changes only a trusted path keeps the ancestor PASS of a gate whose paths match it', async () => {
    const repo = makeRepo();
    const base = repo.commit('machinery', { 'gate.sh': 'v1\n', 'src/a.txt': 'a\n' });
    const policy = policySchema.parse({
      target: 'main',
      gates: [{ name: 'lint', run: 'sh gate.sh', paths: ['src/**', 'gate.sh'] }],
      trusted: ['gate.sh'],
    });
    const store = await openStore(repo.dir);
    store.writeGatePasses(base, { lint: gateHash(policy.gates[0]!) });
    const train = repo.branch('newgate', { 'gate.sh': 'exit 0\n' });

    const gated = await gatedTreeOf(repo.dir, policy, base, repo.tip('newgate^{tree}'));
    expect(gated).toEqual({ tree: repo.tip('main^{tree}'), restored: ['gate.sh'] });
    const withRestore = await selectGates({ cwd: repo.dir, store, gates: policy.gates, base, train, gated: gated.tree });
    expect(withRestore.gates).toEqual([]);
    expect(withRestore.telemetry.cached).toEqual([{ gate: 'lint', from: base }]);

    // Compared with the train's own tree, gate.sh would select the gate.
    const without = await selectGates({ cwd: repo.dir, store, gates: policy.gates, base, train });
    expect(without.gates.map((gate) => gate.name)).toEqual(['lint']);
    expect(without.telemetry.missReasons.lint).toBe('changed: gate.sh');
  });
});
