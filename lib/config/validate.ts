// Turns a .ctm.json text into a policy or into every problem at once, each with its key path.
import { z } from 'zod';
import { PARSED_ONCE } from './parseOnce.js';
import { LandError } from '../errors.js';
import { executorProblems } from './executors.js';
import { knownKeysAt } from './knownKeys.js';
import { DEFAULT_FLAKY_THRESHOLD, POLICY_FILE, policySchema, type Policy } from './schema.js';
import { nearestKey } from './suggest.js';

export type PolicyParse = { ok: true; policy: Policy } | { ok: false; problems: string[] };

/** `gates[1].timeoutSeconds`; a key that is not a plain word is quoted (`env["A B"]`), so a problem stays one line. */
function pathOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z0-9_$-]+$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out === '' ? '(root)' : out;
}

/** The value at `path` inside `raw`, or undefined. */
function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let current = raw;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** `gate: unknown key; did you mean gates?`: the nearest known key at that level not already set. */
function describeUnknownKey(raw: unknown, path: readonly PropertyKey[], key: string): string {
  const here = valueAt(raw, path);
  const present = new Set(here && typeof here === 'object' ? Object.keys(here) : []);
  const suggestion = nearestKey(
    key,
    knownKeysAt(policySchema, path).filter((known) => !present.has(known)),
  );
  const line = `${pathOf([...path, key])}: unknown key`;
  return suggestion === null ? line : `${line}; did you mean ${pathOf([...path, suggestion])}?`;
}

/** One line per problem: an issue about unknown keys names each key. */
function describeIssue(issue: z.core.$ZodIssue, raw: unknown): string[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => describeUnknownKey(raw, issue.path, key));
  }
  if (issue.code === 'invalid_type' && issue.message.includes('received undefined')) {
    return [`${pathOf(issue.path)}: required (expected ${issue.expected})`];
  }
  // Every boolean key in the project's words, not zod's ("Invalid input: expected boolean, received string").
  if (issue.code === 'invalid_type' && issue.expected === 'boolean') return [`${pathOf(issue.path)}: expected true or false`];
  return [`${pathOf(issue.path)}: ${issue.message}`];
}

export function parsePolicy(text: string): PolicyParse {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`(file): not valid JSON: ${(error as Error).message}`] };
  }
  const result = policySchema.safeParse(raw, PARSED_ONCE);
  // Duplicate gate names (and executor hosts) are checked on the raw value so they are reported with the schema's own
  // problems, not only once those are fixed.
  const problems = result.success ? [] : result.error.issues.flatMap((issue) => describeIssue(issue, raw));
  problems.push(...duplicateGateNames(raw), ...executorProblems(raw), ...flakyRuleProblems(raw));
  if (!result.success || problems.length) return { ok: false, problems };
  return { ok: true, policy: withFlakyRule(result.data, raw) };
}

/** What the flaky rule's checks read of a raw policy, whatever else it holds (valid or not). */
const rawFlaky = z.looseObject({
  retries: z.looseObject({ flaky: z.unknown().optional() }).optional(),
  flaky: z.looseObject({ rule: z.unknown().optional(), threshold: z.unknown().optional(), clearing: z.unknown().optional() }).optional(),
  batch: z.looseObject({ parallel: z.unknown().optional() }).optional(),
});

/**
 * A policy written before the evidence rule, with `retries.flaky` above 0 and no `flaky.rule`,
 * keeps the fixed allowance it asked for: the upgrade changes nothing for it (docs/policy.md#flaky-gates).
 */
function withFlakyRule(policy: Policy, raw: unknown): Policy {
  const written = rawFlaky.safeParse(raw, PARSED_ONCE);
  if (policy.retries.flaky === 0 || (written.success && written.data.flaky?.rule !== undefined)) return policy;
  return { ...policy, flaky: { ...policy.flaky, rule: 'retries' } };
}

/** What the duplicate check reads of a raw policy, whatever else it holds (valid or not). */
const rawGates = z.looseObject({ gates: z.array(z.unknown()) });
const namedGate = z.looseObject({ name: z.string() });

function duplicateGateNames(raw: unknown): string[] {
  const parsed = rawGates.safeParse(raw, PARSED_ONCE);
  if (!parsed.success) return [];
  const problems: string[] = [];
  const seen = new Set<string>();
  parsed.data.gates.forEach((gate, index) => {
    const named = namedGate.safeParse(gate, PARSED_ONCE);
    if (!named.success) return;
    const { name } = named.data;
    if (seen.has(name)) problems.push(`gates[${index}].name: duplicate gate name "${name}"`);
    seen.add(name);
  });
  return problems;
}

/**
 * Each rule's own key, checked on the raw policy (so with the schema's problems): retries.flaky
 * counts only under "retries", flaky.threshold only under "evidence"; written under the other
 * rule, either would be ignored without a word. So would flaky.clearing with one train at a time.
 */
function flakyRuleProblems(raw: unknown): string[] {
  const written = rawFlaky.safeParse(raw, PARSED_ONCE);
  if (!written.success) return [];
  const { retries, flaky, batch } = written.data;
  const clearing =
    flaky?.clearing === true && !(typeof batch?.parallel === 'number' && batch.parallel > 1)
      ? ['flaky.clearing: needs batch.parallel 2 or more (a failed train is cleared by the train built on it, gating beside it)']
      : [];
  return [...clearing, ...ruleKeyProblems(retries, flaky)];
}

/** retries.flaky or flaky.threshold written under the other rule. */
function ruleKeyProblems(retries: z.infer<typeof rawFlaky>['retries'], flaky: z.infer<typeof rawFlaky>['flaky']): string[] {
  const allowance = typeof retries?.flaky === 'number' && retries.flaky > 0;
  if (flaky?.rule === 'evidence' && allowance)
    return ['retries.flaky: counts only with "flaky": { "rule": "retries" }; remove retries.flaky to judge failures by evidence, or set that rule'];
  // Under "retries", written or implied by an allowance with no rule; the default written back (`land config`'s output) is harmless.
  const retriesRule = flaky?.rule === 'retries' || (flaky?.rule === undefined && allowance);
  if (retriesRule && flaky?.threshold !== undefined && flaky.threshold !== DEFAULT_FLAKY_THRESHOLD)
    return [
      'flaky.threshold: counts only with "flaky": { "rule": "evidence" } (the default); remove it, or the fixed allowance (flaky.rule "retries" or retries.flaky)',
    ];
  return [];
}

export function policyOrThrow(text: string, where: string): Policy {
  const parsed = parsePolicy(text);
  if (parsed.ok) return parsed.policy;
  throw new LandError('config', `${POLICY_FILE} on ${where} is invalid (${parsed.problems.length} problem${parsed.problems.length === 1 ? '' : 's'})`, {
    details: parsed.problems,
  });
}
