// Turns a .ctm.json text into a policy or into every problem at once, each with its key path.
import type { z } from 'zod';
import { LandError } from '../errors.js';
import { POLICY_FILE, policySchema, type Policy } from './schema.js';

export type PolicyParse = { ok: true; policy: Policy } | { ok: false; problems: string[] };

function pathOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `${pathOf([...issue.path, key])}: unknown key`).join('\n');
  }
  if (issue.code === 'invalid_type' && issue.message.includes('received undefined')) {
    return `${pathOf(issue.path)}: required (expected ${issue.expected})`;
  }
  return `${pathOf(issue.path)}: ${issue.message}`;
}

export function parsePolicy(text: string): PolicyParse {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`(file): not valid JSON: ${(error as Error).message}`] };
  }
  const result = policySchema.safeParse(raw);
  // Duplicate gate names are checked on the raw value so they are reported with the schema's own
  // problems, not only once those are fixed.
  const problems = result.success ? [] : result.error.issues.flatMap((issue) => describeIssue(issue).split('\n'));
  problems.push(...duplicateGateNames(raw));
  if (!result.success || problems.length) return { ok: false, problems };
  return { ok: true, policy: result.data };
}

function duplicateGateNames(raw: unknown): string[] {
  const gates = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>).gates : undefined;
  if (!Array.isArray(gates)) return [];
  const problems: string[] = [];
  const seen = new Set<string>();
  gates.forEach((gate: unknown, index) => {
    const name = gate && typeof gate === 'object' ? (gate as Record<string, unknown>).name : undefined;
    if (typeof name !== 'string') return;
    if (seen.has(name)) problems.push(`gates[${index}].name: duplicate gate name "${name}"`);
    seen.add(name);
  });
  return problems;
}

export function policyOrThrow(text: string, where: string): Policy {
  const parsed = parsePolicy(text);
  if (parsed.ok) return parsed.policy;
  throw new LandError('config', `${POLICY_FILE} on ${where} is invalid (${parsed.problems.length} problem${parsed.problems.length === 1 ? '' : 's'})`, {
    details: parsed.problems,
  });
}
