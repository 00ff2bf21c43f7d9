import { readVar, type Env } from './envNames.js';

export const DEFAULT_PROVIDERS: readonly string[] = ['claude-code'];

export type ProviderCheck = { kind: 'allowed'; provider: string | null } | { kind: 'refused'; provider: string };

/** An unset provider variable is allowed; a set one must be on the policy's list. */
export function checkProvider(env: Env, allowed: readonly string[] = DEFAULT_PROVIDERS): ProviderCheck {
  const provider = readVar(env, 'provider');
  if (provider === undefined) return { kind: 'allowed', provider: null };
  return allowed.includes(provider) ? { kind: 'allowed', provider } : { kind: 'refused', provider };
}
