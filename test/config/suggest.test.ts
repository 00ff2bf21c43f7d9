// "did you mean ...?" for an unknown .ctm.json key: the edit distance, the nearest-key choice, the
// policy's problem lines at every level, and `land config` on a policy that says `gate`.
import { afterAll, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../lib/config/index.js';
import { editDistance, nearestKey } from '../../lib/config/suggest.js';
import { knownKeysAt } from '../../lib/config/knownKeys.js';
import { policySchema } from '../../lib/config/schema.js';
import { land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo } from '../helpers/repo.js';
import { errorLines } from '../helpers/state.js';

afterAll(() => cleanupTempDirs());

function problems(value: unknown): string[] {
  const parsed = parsePolicy(JSON.stringify(value));
  if (parsed.ok) throw new Error('expected problems, the policy parsed');
  return parsed.problems;
}

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and swaps of neighbours as one edit each', () => {
    expect(editDistance('gates', 'gates')).toBe(0);
    expect(editDistance('gate', 'gates')).toBe(1);
    expect(editDistance('maxx', 'max')).toBe(1);
    expect(editDistance('rnu', 'run')).toBe(1);
    expect(editDistance('gaets', 'gates')).toBe(1);
    expect(editDistance('publsih', 'publish')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
    // Optimal string alignment: no edit of a swapped pair again.
    expect(editDistance('ca', 'abc')).toBe(3);
  });

  it('is symmetric', () => {
    for (const [a, b] of [
      ['target', 'tagret'],
      ['waitSeconds', 'waitSecs'],
      ['ledger', 'ledgre'],
    ] as const) {
      expect(editDistance(a, b)).toBe(editDistance(b, a));
    }
  });
});

describe('nearestKey', () => {
  const root = ['$schema', 'target', 'remote', 'gates', 'batch', 'publish', 'refresh', 'retries', 'proof', 'ledger'];
  const gate = ['name', 'run', 'timeoutSeconds', 'env', 'passEnv', 'paths', 'batch', 'network', 'readOnly', 'readWrite'];

  it('names the known key a typo most likely meant', () => {
    expect(nearestKey('gate', root)).toBe('gates');
    expect(nearestKey('tagret', root)).toBe('target');
    expect(nearestKey('publsh', root)).toBe('publish');
    expect(nearestKey('retry', root)).toBe('retries');
    expect(nearestKey('maxx', ['max', 'waitSeconds'])).toBe('max');
    expect(nearestKey('cmd', gate)).toBe(null);
    expect(nearestKey('runs', gate)).toBe('run');
  });

  it('ignores case, "_" and "-", and knows a shortened longer key', () => {
    expect(nearestKey('timeout_seconds', gate)).toBe('timeoutSeconds');
    expect(nearestKey('pass-env', gate)).toBe('passEnv');
    expect(nearestKey('Gates', root)).toBe('gates');
    expect(nearestKey('timeout', gate)).toBe('timeoutSeconds');
    expect(nearestKey('tmeout', gate)).toBe('timeoutSeconds');
    expect(nearestKey('wait', ['max', 'waitSeconds'])).toBe('waitSeconds');
  });

  it('suggests nothing when nothing is close', () => {
    expect(nearestKey('surprise', root)).toBe(null);
    expect(nearestKey('x', root)).toBe(null);
    expect(nearestKey('', root)).toBe(null);
    expect(nearestKey('gate', [])).toBe(null);
    expect(nearestKey('description', gate)).toBe(null);
    expect(nearestKey('job', root)).toBe(null);
    // Two edits in four letters is another word, not a typo.
    expect(nearestKey('gate', ['name', 'batch'])).toBe(null);
  });

  it('prefers the closer key, then the earlier one', () => {
    expect(nearestKey('pats', ['paths', 'pass'])).toBe('paths');
    expect(nearestKey('ab', ['ac', 'ad'])).toBe('ac');
    // A whole-key match beats a prefix match at the same distance.
    expect(nearestKey('runx', ['runner', 'run'])).toBe('run');
  });
});

describe('knownKeysAt', () => {
  it('walks objects, arrays and wrappers of the policy schema', () => {
    expect(knownKeysAt(policySchema, [])).toContain('gates');
    expect(knownKeysAt(policySchema, ['batch'])).toEqual(['max', 'waitSeconds', 'parallel']);
    expect(knownKeysAt(policySchema, ['gates', 3])).toEqual([
      'name',
      'run',
      'timeoutSeconds',
      'env',
      'passEnv',
      'paths',
      'batch',
      'network',
      'readOnly',
      'readWrite',
      'advisory',
    ]);
    expect(knownKeysAt(policySchema, ['gates', 0, 'batch'])).toEqual(['job', 'measureDir']);
    expect(knownKeysAt(policySchema, ['refresh', 0])).toContain('message');
    expect(knownKeysAt(policySchema, ['gates', 0, 'env'])).toEqual([]);
    expect(knownKeysAt(policySchema, ['nowhere'])).toEqual([]);
  });
});

describe('parsePolicy: unknown keys name the nearest known key at their level', () => {
  it('at the root, in nested objects, in a gate and in a refresh entry, all at once', () => {
    const list = problems({
      target: 'main',
      gate: [{ name: 'test', run: 'true' }],
      batch: { maxx: 4 },
      publish: { atuo: true },
      refresh: [{ paths: ['a'], run: 'true', mesage: 'm' }],
      surprise: 1,
    });
    expect(list.sort()).toEqual(
      [
        'gate: unknown key; did you mean gates?',
        'batch.maxx: unknown key; did you mean batch.max?',
        'publish.atuo: unknown key; did you mean publish.auto?',
        'refresh[0].mesage: unknown key; did you mean refresh[0].message?',
        'refresh[0].message: required (expected string)',
        'surprise: unknown key',
      ].sort(),
    );
  });

  it('names gate keys inside a gate, and does not suggest a key the object already has', () => {
    expect(problems({ target: 'main', gates: [], gate: [] })).toEqual(['gate: unknown key']);
    const gate = { name: 'test', run: 'true', timeout: 60, batch: { job: 'x', measureDir: 'm', measure_dir: 'n' } };
    expect(problems({ target: 'main', gates: [{ name: 'ok', run: 'true' }, gate] }).sort()).toEqual([
      // measureDir is already set: no suggestion to write it twice.
      'gates[1].batch.measure_dir: unknown key',
      'gates[1].timeout: unknown key; did you mean gates[1].timeoutSeconds?',
    ]);
  });

  it('keeps every problem on one line, even for a key with a line break', () => {
    const list = problems({ target: 'main', 'gat\nes': [], gates: [{ name: 'a', run: 'x', env: { 'NOT OK': '1' } }] });
    expect(list).toHaveLength(2);
    for (const line of list) expect(line).not.toContain('\n');
    expect(list).toContain('["gat\\nes"]: unknown key');
  });
});

describe('land config: an unknown key', () => {
  it('exits 3 and says "did you mean gates?" for `gate`, with the other problems', async () => {
    const repo = makeRepo();
    repo.commit('policy with a typo', {
      '.ctm.json': JSON.stringify({ target: 'main', gate: [{ name: 'test', run: 'true' }], batch: { maxx: 2 } }, null, 2),
    });
    const result = await land(repo.dir, ['config']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(errorLines(result.stderr)).toHaveLength(1);
    expect(errorLines(result.stderr)[0]).toContain('.ctm.json on main');
    expect(errorLines(result.stderr)[0]).toContain('2 problems');
    const lines = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('  '))
      .map((line) => line.trim());
    expect(lines.sort()).toEqual(['batch.maxx: unknown key; did you mean batch.max?', 'gate: unknown key; did you mean gates?']);

    const json = await land(repo.dir, ['config', '--json']);
    expect(json.code).toBe(3);
    expect(json.stdout).toBe('');
    expect(json.stderr).toContain('gate: unknown key; did you mean gates?');
  });
});
