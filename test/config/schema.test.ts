// The JSON Schema of .ctm.json (`land config schema`): every key at every depth carries a
// description, and docs/policy.md documents exactly the keys the schema has.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePolicy, policyJsonSchema } from '../../lib/config/index.js';
import { ROOT } from '../helpers/cli.js';

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Every property of the schema, at every depth: its key path (`gates[].batch.job`) and its node. */
function properties(schema: Node): Array<{ path: string; node: Node }> {
  const found: Array<{ path: string; node: Node }> = [];
  const defs = { ...(isNode(schema.$defs) ? schema.$defs : {}), ...(isNode(schema.definitions) ? schema.definitions : {}) };
  const seen = new Set<Node>();
  const visit = (node: unknown, path: string) => {
    if (!isNode(node) || seen.has(node)) return;
    seen.add(node);
    if (typeof node.$ref === 'string') visit(defs[node.$ref.replace(/^#\/(\$defs|definitions)\//, '')], path);
    if (isNode(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) {
        const childPath = path === '' ? key : `${path}.${key}`;
        found.push({ path: childPath, node: isNode(child) ? child : {} });
        visit(child, childPath);
      }
    }
    if (node.items !== undefined) visit(node.items, `${path}[]`);
    if (Array.isArray(node.prefixItems)) for (const item of node.prefixItems) visit(item, `${path}[]`);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      const list = node[key];
      if (Array.isArray(list)) for (const option of list) visit(option, path);
    }
    if (isNode(node.additionalProperties)) visit(node.additionalProperties, `${path}.*`);
  };
  visit(schema, '');
  return found;
}

/** A description on the property itself, or on the definition it refers to. */
function descriptionOf(node: Node, schema: Node): unknown {
  if (node.description !== undefined) return node.description;
  if (typeof node.$ref === 'string' && isNode(schema.$defs)) {
    const target = schema.$defs[node.$ref.replace(/^#\/\$defs\//, '')];
    return isNode(target) ? target.description : undefined;
  }
  return undefined;
}

const POLICY_DOC = readFileSync(join(ROOT, 'docs', 'policy.md'), 'utf8');

/** The keys of the table in docs/policy.md (`| \`gates[].name\` | ...`). */
function documentedKeys(): string[] {
  return [...POLICY_DOC.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]!);
}

describe('the JSON Schema of .ctm.json', () => {
  const schema = policyJsonSchema();
  const props = properties(schema);

  it('finds the keys at every depth (the walk itself)', () => {
    const paths = props.map((prop) => prop.path);
    for (const path of ['target', 'gates', 'gates[].name', 'gates[].batch.measureDir', 'batch.max', 'refresh[].message', 'ledger.dir']) {
      expect(paths).toContain(path);
    }
  });

  it('has a description for every property at every depth', () => {
    const missing = props.filter((prop) => {
      const description = descriptionOf(prop.node, schema);
      return typeof description !== 'string' || description.trim().length < 10;
    });
    expect(missing.map((prop) => prop.path)).toEqual([]);
    expect(typeof schema.description).toBe('string');
  });

  it('documents in docs/policy.md exactly the keys the schema has', () => {
    const schemaKeys = props.map((prop) => prop.path).sort();
    expect(documentedKeys().sort()).toEqual(schemaKeys);
  });

  it('accepts the example policy of docs/policy.md', () => {
    const example = /```json\n([\s\S]*?)```/.exec(POLICY_DOC);
    expect(example).not.toBeNull();
    const parsed = parsePolicy(example![1]!);
    expect(parsed.ok ? [] : parsed.problems).toEqual([]);
  });
});
