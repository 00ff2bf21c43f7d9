// A drainer's caches: the verdict cache, the proofs (lib/store/formats/proof.ts), the
// window, and the per-gate PASS records of selective gates. A cache entry that does not parse is
// a miss (the gate runs again); only the window, which holds a decision, reports corruption.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { LandError } from '../../errors.js';
import { TEMP_MARK, writeJsonAtomic } from '../atomic.js';
import type { StatePaths } from '../paths.js';
import {
  gatePassesSchema,
  parseProof,
  proofOfTipSchema,
  proofSchema,
  verdictSchema,
  windowStateSchema,
  type Proof,
  type ProofRead,
  type VerdictRecord,
  type WindowState,
  trustedVerdict,
} from '../formats/index.js';
import { parseWith, readText } from './parse.js';

/** Cache entries and the landing token: atomic, not fsynced (lib/store/atomic.ts AtomicWrite). */
export const CACHE = { durable: false } as const;

/** The entry the drain may act on: null when there is none, or it is corrupt or voided (a miss: the gate runs again). */
export function getVerdict(paths: StatePaths, tree: string, gatesHash: string): VerdictRecord | null {
  return trustedVerdict(readVerdict(paths, tree, gatesHash));
}

/** The entry as written, voided or not; null when there is none or it is corrupt. */
export function readVerdict(paths: StatePaths, tree: string, gatesHash: string): VerdictRecord | null {
  const text = readText(paths.verdict(tree, gatesHash));
  if (text === null) return null;
  const parsed = parseWith(verdictSchema, text);
  return parsed.ok ? parsed.value : null;
}

export function putVerdict(paths: StatePaths, record: VerdictRecord): void {
  writeJsonAtomic(paths.verdict(record.tree, record.gatesHash), record, CACHE);
}

/** Every readable entry, voided ones included (`land verdicts`); corrupt entries and temp files are skipped. */
export function listVerdicts(paths: StatePaths): VerdictRecord[] {
  let names: string[];
  try {
    names = readdirSync(paths.verdictsDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const records: VerdictRecord[] = [];
  for (const name of names) {
    if (!name.endsWith('.json') || name.includes(TEMP_MARK)) continue;
    const text = readText(join(paths.verdictsDir, name));
    const parsed = text === null ? null : parseWith(verdictSchema, text);
    if (parsed?.ok) records.push(parsed.value);
  }
  return records;
}

/** Removes one entry; false when there was none. */
export function removeVerdict(paths: StatePaths, tree: string, gatesHash: string): boolean {
  const path = paths.verdict(tree, gatesHash);
  if (readText(path) === null) return false;
  rmSync(path, { force: true });
  return true;
}

/** The proof of `tree`; 'corrupt' when the file exists but is not a proof of that tree. */
export function readProof(paths: StatePaths, tree: string): ProofRead {
  const text = readText(paths.proof(tree));
  if (text === null) return null;
  try {
    return parseProof(JSON.parse(text), tree);
  } catch {
    return 'corrupt';
  }
}

export function writeProof(paths: StatePaths, proof: Proof): void {
  writeJsonAtomic(paths.proof(proof.tree), proofSchema.parse(proof), CACHE);
}

/** The tree of the latest proof made for `tip`, or null. */
export function readProofTreeOfTip(paths: StatePaths, tip: string): string | null {
  const text = readText(paths.proofOfTip(tip));
  if (text === null) return null;
  try {
    const parsed = proofOfTipSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.tree : null;
  } catch {
    return null;
  }
}

export function writeProofTreeOfTip(paths: StatePaths, tip: string, tree: string): void {
  writeJsonAtomic(paths.proofOfTip(tip), { tip, tree }, CACHE);
}

/** The persisted window, or null when none was written yet. A corrupt file is an error. */
export function readWindow(paths: StatePaths): WindowState | null {
  const text = readText(paths.window);
  if (text === null) return null;
  const parsed = parseWith(windowStateSchema, text);
  if (!parsed.ok) throw new LandError('corrupt', `window.json is corrupt: ${parsed.problem}`, { hint: 'run `land window --reset`' });
  return parsed.value;
}

/** `durable` false: not fsynced (a drain under the unsynced mark: lib/queue/unsyncedWrites.ts). */
export function writeWindow(paths: StatePaths, state: WindowState, durable = true): void {
  writeJsonAtomic(paths.window, state, { durable });
}

/** gate name → hash of that gate's definition, for each gate that passed on `commit`; null when none (or corrupt: a miss). */
export function readGatePasses(paths: StatePaths, commit: string): Record<string, string> | null {
  const text = readText(paths.gatePasses(commit));
  if (text === null) return null;
  const parsed = parseWith(gatePassesSchema, text);
  if (!parsed.ok || parsed.value.commit !== commit) return null; // a corrupt record is a miss: the gate runs
  return parsed.value.gates;
}

export function writeGatePasses(paths: StatePaths, commit: string, passes: Record<string, string>): void {
  writeJsonAtomic(paths.gatePasses(commit), { commit, gates: passes }, CACHE);
}
