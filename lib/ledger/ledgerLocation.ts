// The ledger dir as `land ledger` sees it: the same resolution as the batch wrapper (environment,
// then .env at the repository root, then the policy, then the shared lane dir).
import { LandError } from '../errors.js';
import { withDotenv } from './dotenv.js';
import type { Env } from './envNames.js';
import { noLedgerDirMessage, resolveLedgerDir } from './ledgerDir.js';
import { readLedgerPolicy } from './ledgerPolicy.js';

export async function ledgerDirOrThrow(cwd: string, env: Env, target?: string): Promise<string> {
  const { policy, root } = await readLedgerPolicy(cwd, target);
  const merged = withDotenv(env, root ?? cwd).env;
  const dir = resolveLedgerDir(merged, policy, root ?? cwd);
  if (dir === null) {
    throw new LandError('not_found', noLedgerDirMessage(merged), { hint: 'set LAND_LEDGER_DIR, or ledger.dir in .ctm.json' });
  }
  return dir;
}
