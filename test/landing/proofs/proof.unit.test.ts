// The proof record and the pure decision whether a proof lets a tree skip its gates.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { proofRefusal, readProof, recordProof, type Proof } from '../../../lib/landing/proofs/proof.js';
import { localStore } from '../../../lib/store/index.js';
import { cleanupTempDirs, tempDir } from '../../helpers/repo.js';

afterAll(() => cleanupTempDirs());

const TREE = 'a'.repeat(40);
const BASE_TREE = 'b'.repeat(40);

function proof(overrides: Partial<Proof> = {}): Proof {
  return {
    version: 1,
    tree: TREE,
    planBaseTree: BASE_TREE,
    gatesHash: '0123456789abcdef',
    verdict: 'PASS',
    source: 'train',
    commit: 'c'.repeat(40),
    seconds: 1.5,
    at: '2026-01-01T00:00:00.000Z',
    logPath: '/tmp/x.log',
    selection: null,
    ...overrides,
  };
}

const EXPECT = { gatesHash: '0123456789abcdef', planBaseTree: BASE_TREE, trustLocal: true, logExists: true };

describe('proofRefusal', () => {
  it('accepts a matching proof', () => {
    expect(proofRefusal(proof(), EXPECT)).toBeNull();
    expect(proofRefusal(proof({ source: 'local' }), EXPECT)).toBeNull();
  });

  it('names each refusal', () => {
    expect(proofRefusal(null, EXPECT)).toBe('no_pass');
    expect(proofRefusal('corrupt', EXPECT)).toBe('corrupt');
    expect(proofRefusal(proof({ source: 'local' }), { ...EXPECT, trustLocal: false })).toBe('untrusted_source');
    expect(proofRefusal(proof({ source: 'train' }), { ...EXPECT, trustLocal: false })).toBeNull();
    expect(proofRefusal(proof({ gatesHash: 'ffffffffffffffff' }), EXPECT)).toBe('gates_changed');
    expect(proofRefusal(proof({ planBaseTree: 'd'.repeat(40) }), EXPECT)).toBe('target_moved');
    expect(proofRefusal(proof(), { ...EXPECT, logExists: false })).toBe('log_missing');
  });

  it('checks in order: source, gates, target, log', () => {
    const everythingWrong = proof({ source: 'local', gatesHash: 'ffffffffffffffff', planBaseTree: 'd'.repeat(40) });
    const expectAll = { ...EXPECT, trustLocal: false, logExists: false };
    expect(proofRefusal(everythingWrong, expectAll)).toBe('untrusted_source');
    expect(proofRefusal(everythingWrong, { ...expectAll, trustLocal: true })).toBe('gates_changed');
    expect(proofRefusal({ ...everythingWrong, gatesHash: EXPECT.gatesHash }, { ...expectAll, trustLocal: true })).toBe('target_moved');
    expect(proofRefusal({ ...everythingWrong, gatesHash: EXPECT.gatesHash, planBaseTree: BASE_TREE }, { ...expectAll, trustLocal: true })).toBe('log_missing');
  });
});

describe('recordProof / readProof', () => {
  it('round-trips through proofs/<tree>.json, a later proof replacing the earlier one', () => {
    const store = localStore(join(tempDir(), 'land'));
    store.ensure();
    expect(readProof(store, TREE)).toBeNull();
    recordProof(store, proof());
    expect(readProof(store, TREE)).toEqual(proof());
    recordProof(store, proof({ source: 'local', seconds: 3 }));
    expect(readProof(store, TREE)).toMatchObject({ source: 'local', seconds: 3 });
  });

  it('reports a corrupt file, or a proof of another tree, as corrupt', () => {
    const store = localStore(join(tempDir(), 'land'));
    store.ensure();
    writeFileSync(join(store.root, 'proofs', `${TREE}.json`), '{ not json');
    expect(readProof(store, TREE)).toBe('corrupt');
    writeFileSync(join(store.root, 'proofs', `${TREE}.json`), JSON.stringify({ ...proof(), verdict: 'FAIL' }));
    expect(readProof(store, TREE)).toBe('corrupt');
    writeFileSync(join(store.root, 'proofs', `${TREE}.json`), JSON.stringify(proof({ tree: 'e'.repeat(40) })));
    expect(readProof(store, TREE)).toBe('corrupt');
  });

  it('refuses to write a record that is not a proof', () => {
    const store = localStore(join(tempDir(), 'land'));
    expect(() => recordProof(store, { ...proof(), tree: 'not-a-tree' })).toThrow();
  });
});
