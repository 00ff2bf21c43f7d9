// The verdict cache in the state folder: a voided FAIL is a miss for the drain (getVerdict) but still
// listed (land verdicts); entries written before `voided` existed read as before; a corrupt entry or
// a temp file is skipped; removeVerdict says whether there was one.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localStore, type VerdictRecord } from '../../lib/store/index.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

const HASH = 'abcdef012345';
const fail = (tree: string): VerdictRecord => ({
  tree,
  gatesHash: HASH,
  verdict: 'FAIL',
  reason: 'test',
  seconds: 1,
  at: '2026-12-01T10:00:00.000Z',
  train: 'b-1',
  log: null,
});

describe('the verdict cache', () => {
  it('voided: listed, never trusted; old entries read; corrupt and temp files skipped; removal', () => {
    const root = join(tempDir(), 'land');
    const store = localStore(root);
    store.ensure();
    const [a, b] = ['a'.repeat(40), 'b'.repeat(40)];
    store.putVerdict(fail(a)); // as written before `voided` existed
    store.putVerdict({ ...fail(b), voided: { at: '2026-12-01T10:05:00.000Z', why: 'target_red', train: 'b-1' } });
    writeFileSync(join(root, 'verdicts', `${'c'.repeat(40)}-${HASH}.json`), '{"tree":');
    writeFileSync(join(root, 'verdicts', `${'d'.repeat(40)}-${HASH}.json.tmp-1-abcd`), JSON.stringify(fail('d'.repeat(40))));

    expect(store.getVerdict(a, HASH)).toEqual(fail(a));
    expect(store.getVerdict(b, HASH)).toBeNull();
    expect(
      store
        .listVerdicts()
        .map((v) => [v.tree, v.voided?.why ?? null])
        .sort(),
    ).toEqual([
      [a, null],
      [b, 'target_red'],
    ]);

    expect(store.removeVerdict(b, HASH)).toBe(true);
    expect(store.removeVerdict(b, HASH)).toBe(false);
    expect(store.listVerdicts().map((v) => v.tree)).toEqual([a]);
  });
});
