// parsePolicy, gatesHash and policyOfRead: pure functions, no repository.
import { describe, expect, it } from 'vitest';
import { gatesHash, parsePolicy, policyJsonSchema, policyOfRead, type Policy } from '../../lib/config/index.js';

function ok(text: string): Policy {
  const parsed = parsePolicy(text);
  if (!parsed.ok) throw new Error(`expected a valid policy, got: ${parsed.problems.join('; ')}`);
  return parsed.policy;
}

function problems(value: unknown): string[] {
  const parsed = parsePolicy(typeof value === 'string' ? value : JSON.stringify(value));
  if (parsed.ok) throw new Error('expected problems, the policy parsed');
  return parsed.problems;
}

const pathsOf = (list: string[]) => list.map((line) => line.slice(0, line.indexOf(':'))).sort();

describe('parsePolicy', () => {
  it('fills in the documented defaults', () => {
    const policy = ok(JSON.stringify({ target: 'main', gates: [{ name: 'test', run: 'npm test' }] }));
    expect(policy.remote).toBe('origin');
    expect(policy.batch).toEqual({ max: 8, waitSeconds: 0, parallel: 1 });
    expect(policy.gates[0]).toEqual({ name: 'test', run: 'npm test', timeoutSeconds: 600, env: {}, passEnv: [] });
    expect(policy.publish.auto).toBe(false);
    expect(policy.ledger.providers).toEqual(['claude-code']);
  });

  it('reports every problem at once, each with its dot path', () => {
    const list = problems({
      batch: { max: 'eight', waitSeconds: -1 },
      gates: [
        { name: 'test', run: 'npm test', tmeout: 5 },
        { name: 'bad name!', run: [], timeoutSeconds: 0 },
      ],
      publish: { auto: 'yes' },
      surprise: true,
    });
    expect(pathsOf(list)).toEqual(
      [
        'target',
        'batch.max',
        'batch.waitSeconds',
        'gates[0].tmeout',
        'gates[1].name',
        'gates[1].run',
        'gates[1].timeoutSeconds',
        'publish.auto',
        'surprise',
      ].sort(),
    );
    expect(list.find((line) => line.startsWith('target:'))).toMatch(/required/);
    expect(list.find((line) => line.startsWith('gates[0].tmeout:'))).toMatch(/unknown key/);
    // Every boolean key says it in the same words.
    expect(list.find((line) => line.startsWith('publish.auto:'))).toBe('publish.auto: expected true or false');
    for (const line of list) expect(line).not.toContain('\n');
  });

  it('says a boolean key expects true or false, the advisory mark of a gate too', () => {
    expect(
      problems({
        target: 'main',
        gates: [
          { name: 'a', run: 'x' },
          { name: 'b', run: 'y', advisory: 'yes' },
        ],
      }),
    ).toEqual(['gates[1].advisory: expected true or false']);
  });

  it('the flaky rule: evidence by default; a policy written before it with retries.flaky keeps the fixed allowance; each key under its own rule', () => {
    const gates = [{ name: 'test', run: 'npm test' }];
    expect(ok(JSON.stringify({ target: 'main', gates })).flaky).toEqual({ rule: 'evidence', threshold: 0.99, clearing: false });
    expect(ok(JSON.stringify({ target: 'main', gates, retries: { flaky: 2 } })).flaky.rule).toBe('retries');
    expect(ok(JSON.stringify({ target: 'main', gates, retries: { flaky: 0 } })).flaky.rule).toBe('evidence');
    expect(ok(JSON.stringify({ target: 'main', gates, flaky: { rule: 'retries' }, retries: { flaky: 1 } })).retries.flaky).toBe(1);
    // An allowance or a threshold written under the other rule is refused, with the schema's own problems.
    expect(problems({ target: 'main', gates, flaky: { rule: 'evidence' }, retries: { flaky: 2 }, batch: { max: 'x' } })).toEqual([
      expect.stringMatching(/^batch\.max: /),
      'retries.flaky: counts only with "flaky": { "rule": "retries" }; remove retries.flaky to judge failures by evidence, or set that rule',
    ]);
    const thresholdProblem =
      'flaky.threshold: counts only with "flaky": { "rule": "evidence" } (the default); remove it, or the fixed allowance (flaky.rule "retries" or retries.flaky)';
    expect(problems({ target: 'main', gates, flaky: { rule: 'retries', threshold: 0.95 } })).toEqual([thresholdProblem]);
    // The rule implied by an old allowance counts too; the default written back (land config's output) is accepted.
    expect(problems({ target: 'main', gates, flaky: { threshold: 0.95 }, retries: { flaky: 2 } })).toEqual([thresholdProblem]);
    expect(ok(JSON.stringify({ target: 'main', gates, flaky: { rule: 'retries', threshold: 0.99 }, retries: { flaky: 2 } })).flaky.rule).toBe('retries');
    expect(pathsOf(problems({ target: 'main', gates, flaky: { threshold: 1.5 } }))).toEqual(['flaky.threshold']);
  });

  it('flaky.clearing: off by default; on only with batch.parallel 2 or more, where a train is built on the one ahead', () => {
    const gates = [{ name: 'test', run: 'npm test' }];
    expect(ok(JSON.stringify({ target: 'main', gates, batch: { parallel: 2 }, flaky: { clearing: true } })).flaky.clearing).toBe(true);
    expect(ok(JSON.stringify({ target: 'main', gates, flaky: { clearing: false } })).flaky.clearing).toBe(false);
    const needsParallel = 'flaky.clearing: needs batch.parallel 2 or more (a failed train is cleared by the train built on it, gating beside it)';
    expect(problems({ target: 'main', gates, flaky: { clearing: true } })).toEqual([needsParallel]);
    expect(problems({ target: 'main', gates, batch: { parallel: 1 }, flaky: { clearing: true } })).toEqual([needsParallel]);
    expect(pathsOf(problems({ target: 'main', gates, batch: { parallel: 2 }, flaky: { clearing: 'yes' } }))).toEqual(['flaky.clearing']);
  });

  it('reports a duplicate gate name together with the other problems', () => {
    expect(
      pathsOf(
        problems({
          target: 'main',
          gates: [
            { name: 'a', run: 'x' },
            { name: 'a', run: 'y' },
          ],
        }),
      ),
    ).toEqual(['gates[1].name']);
    const list = problems({
      target: 'main',
      batch: { max: 0 },
      gates: [
        { name: 'a', run: 'x' },
        { name: 'a', run: 'y' },
      ],
    });
    expect(pathsOf(list)).toEqual(['batch.max', 'gates[1].name']);
    expect(list.find((line) => line.startsWith('gates[1].name'))).toMatch(/duplicate/);
  });

  it('reports text that is not JSON, and a root that is not an object', () => {
    expect(problems('{ "target": "main", ')).toHaveLength(1);
    expect(problems('{ "target": "main", ')[0]).toMatch(/not valid JSON/);
    expect(problems([])).toHaveLength(1);
  });

  it('has a JSON Schema generated from the same schema', () => {
    const schema = policyJsonSchema() as { properties: Record<string, any>; required?: string[] };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['target', 'gates', 'batch', 'publish']));
    expect(schema.required).toContain('target');
    expect(schema.properties.gates.items.additionalProperties).toBe(false);
  });
});

describe('gatesHash', () => {
  const base = {
    target: 'main',
    gates: [
      { name: 'lint', run: ['npm', 'run', 'lint'], env: { A: '1', B: '2' } },
      { name: 'test', run: 'npm test', timeoutSeconds: 120 },
    ],
  };
  const hashOf = (value: unknown) => gatesHash(ok(JSON.stringify(value)).gates);

  it('is stable under key order, and under spelling a default out', () => {
    const reordered = {
      gates: [
        { env: { B: '2', A: '1' }, run: ['npm', 'run', 'lint'], name: 'lint' },
        { timeoutSeconds: 120, run: 'npm test', name: 'test' },
      ],
      target: 'main',
    };
    expect(hashOf(reordered)).toBe(hashOf(base));
    const explicit = structuredClone(base) as any;
    explicit.gates[0].timeoutSeconds = 600;
    explicit.gates[0].passEnv = [];
    expect(hashOf(explicit)).toBe(hashOf(base));
    // Fields outside the gates do not change it.
    expect(hashOf({ ...base, batch: { max: 3 } })).toBe(hashOf(base));
    expect(hashOf(base)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('changes with any change to a gate', () => {
    const variants: Array<(p: any) => void> = [
      (p) => (p.gates[0].name = 'lint2'),
      (p) => (p.gates[0].run = ['npm', 'run', 'lint', '--fix']),
      (p) => (p.gates[1].run = 'npm test -- --bail'),
      (p) => (p.gates[1].timeoutSeconds = 121),
      (p) => (p.gates[0].env.A = '3'),
      (p) => (p.gates[0].env.C = '1'),
      (p) => (p.gates[0].passEnv = ['TOKEN']),
      (p) => (p.gates[1].paths = ['src/**']),
      (p) => p.gates.reverse(),
      (p) => p.gates.pop(),
      (p) => p.gates.push({ name: 'more', run: 'true' }),
    ];
    const seen = new Set([hashOf(base)]);
    for (const change of variants) {
      const changed = structuredClone(base);
      change(changed);
      const hash = hashOf(changed);
      expect(seen.has(hash), JSON.stringify(changed.gates)).toBe(false);
      seen.add(hash);
    }
  });
});

describe('policyOfRead with the policy read before', () => {
  const text = JSON.stringify({ target: 'main', gates: [{ name: 'test', run: ['true'] }] });
  const read = (oid: string, tip: string, body = text) => ({ commit: tip, tree: `tree-${tip}`, file: { oid, text: body } });

  it('reuses the parsed policy when the file is the same blob at a new tip, and parses a changed one', () => {
    const first = policyOfRead('main', read('blob1', 'tip1'));
    expect(first).toMatchObject({ tip: 'tip1', tree: 'tree-tip1', policyOid: 'blob1' });
    const again = policyOfRead('main', read('blob1', 'tip2', 'not even JSON: never parsed'), first);
    expect(again.policy).toBe(first.policy);
    expect(again).toMatchObject({ tip: 'tip2', tree: 'tree-tip2', policyOid: 'blob1' });
    const changed = JSON.stringify({ target: 'main', gates: [{ name: 'lint', run: ['true'] }] });
    expect(policyOfRead('main', read('blob2', 'tip3', changed), first).policy.gates.map((g) => g.name)).toEqual(['lint']);
    expect(() => policyOfRead('main', read('blob3', 'tip4', 'not JSON'), first)).toThrow();
  });
});
