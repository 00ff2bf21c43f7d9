// `land verdicts`: the verdict cache as a person reads it, and which entries `land verdicts
// forget` removes. Pure: the command reads the entries (QueueStore.listVerdicts) and removes
// what this selects.
import { LandError } from '../../errors.js';
import type { VerdictRecord } from '../../store/index.js';

/** What `forget` was asked: one tree (every gates hash), or a filter (FAILs only, written since a time, or both). */
export type ForgetRequest = { kind: 'tree'; tree: string } | { kind: 'filter'; fails: boolean; since: number | null };

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** The request from `forget`'s argument and options; a usage error for a bad or missing choice. */
export function forgetRequest(tree: string | undefined, opts: { fails?: boolean; since?: number | null }): ForgetRequest {
  const filtered = opts.fails === true || (opts.since ?? null) !== null;
  if (tree !== undefined && filtered) throw new LandError('usage', 'verdicts forget: name a tree, or --fails and/or --since, not both');
  if (tree === undefined && !filtered) throw new LandError('usage', 'verdicts forget: name a tree, --fails or --since <span>');
  if (tree === undefined) return { kind: 'filter', fails: opts.fails === true, since: opts.since ?? null };
  const id = tree.toLowerCase();
  if (!OBJECT_ID.test(id))
    throw new LandError('usage', `verdicts forget: ${JSON.stringify(tree)} is not a tree id (40 or 64 hex digits, as \`git rev-parse main^{tree}\` prints)`);
  return { kind: 'tree', tree: id };
}

/** The entries `request` removes. */
export function verdictsToForget(records: readonly VerdictRecord[], request: ForgetRequest): VerdictRecord[] {
  if (request.kind === 'tree') return records.filter((record) => record.tree === request.tree);
  const since = request.since;
  return records.filter((record) => (!request.fails || record.verdict === 'FAIL') && (since === null || Date.parse(record.at) >= since));
}

/** The entries oldest first (ties by tree), as `land verdicts` lists them. */
export function verdictsInOrder(records: readonly VerdictRecord[]): VerdictRecord[] {
  return [...records].sort((a, b) => a.at.localeCompare(b.at) || a.tree.localeCompare(b.tree));
}

/** One entry as a row of `land verdicts`: tree, gates hash, verdict (and the failing gate), train, when, voided. */
export function verdictRow(record: VerdictRecord): string[] {
  const verdict = record.verdict === 'FAIL' ? `FAIL ${record.reason ?? ''} ${record.status ?? ''}`.trim() : 'PASS';
  const voided = record.voided ? `${record.voided.why}${record.voided.train ? ` (train ${record.voided.train})` : ''}` : '-';
  return [record.tree, record.gatesHash, verdict, record.train, record.at, voided];
}

export const VERDICT_HEADERS = ['tree', 'gates hash', 'verdict', 'train', 'at', 'voided'] as const;
