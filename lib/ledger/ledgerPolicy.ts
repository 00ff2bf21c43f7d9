// The `ledger` part of the policy on the target branch. Outside a repository, or when the target
// branch or its .ctm.json is missing, the defaults apply (they are the strictest settings: only
// claude-code, no local lane). An invalid policy is an error, never silently replaced.
import { LandError } from '../errors.js';
import { POLICY_FILE, loadPolicy, resolveTargetName, type Policy } from '../config/index.js';
import { GitError, branchTip, showFile, topLevel } from '../git/index.js';
import { DEFAULT_PROVIDERS } from './provider.js';

export type LedgerPolicy = Policy['ledger'];

export interface LedgerPolicySource {
  policy: LedgerPolicy;
  /** The repository root, or null outside a repository. */
  root: string | null;
  fromPolicy: boolean;
}

const DEFAULTS: LedgerPolicy = { providers: [...DEFAULT_PROVIDERS] };

export async function readLedgerPolicy(cwd: string, target?: string): Promise<LedgerPolicySource> {
  const root = await topLevel(cwd);
  if (root === null) return { policy: DEFAULTS, root, fromPolicy: false };
  try {
    const name = await resolveTargetName(cwd, target);
    const tip = await branchTip(cwd, name);
    if (tip === null || (await showFile(cwd, tip, POLICY_FILE)) === null) return { policy: DEFAULTS, root, fromPolicy: false };
    return { policy: (await loadPolicy(cwd, name)).policy.ledger, root, fromPolicy: true };
  } catch (error) {
    if (error instanceof GitError) return { policy: DEFAULTS, root, fromPolicy: false };
    // The batch wrapper's exit 3 means "no lane"; a broken policy is a usage problem (exit 2).
    if (error instanceof LandError && error.code === 'config') {
      throw new LandError('usage', error.message, { details: error.details, hint: error.hint });
    }
    throw error;
  }
}
