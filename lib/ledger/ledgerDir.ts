// Where ledger lines go: the explicit variable, else the policy's `ledger.dir`, else
// `<shared lane dir>/ledger` when the shared lane dir exists (a store that is not mounted must
// not be created by accident on the local disk).
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readVar, type Env } from './envNames.js';

export interface LedgerDirPolicy {
  dir?: string | undefined;
}

export function resolveLedgerDir(env: Env, policy?: LedgerDirPolicy, base: string = process.cwd()): string | null {
  const explicit = readVar(env, 'ledgerDir');
  if (explicit !== undefined) return resolve(base, explicit);
  if (policy?.dir !== undefined) return resolve(base, policy.dir);
  const shared = readVar(env, 'laneShared');
  if (shared !== undefined && isDirectory(resolve(base, shared))) return join(resolve(base, shared), 'ledger');
  return null;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** One line for a person when no ledger dir could be found. */
export function noLedgerDirMessage(env: Env): string {
  const shared = readVar(env, 'laneShared');
  const why = shared === undefined ? 'no shared lane dir is set' : `the shared lane dir ${shared} does not exist`;
  return `no ledger dir: LAND_LEDGER_DIR is not set, the policy has no ledger.dir and ${why}`;
}
