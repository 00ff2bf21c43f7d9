// What `land repro` may trust in a metrics row. In a queue kept in a remote the rows it reads are
// merged from every drainer's published metrics ref, which anyone who can push can forge: a row
// must not choose the commit whose policy decides the commands repro runs, nor the sandbox they
// run in. The pure decisions are here; rebuildFailedTrain (repro.ts) gathers the facts.
import type { Policy, SandboxMode, SandboxPolicy } from '../config/index.js';
import { JOB_ID_PATTERN, journalDetail, type JobRecord, type JournalEntry } from '../store/index.js';
import { sandboxMode, type SandboxHost } from '../landing/gates/sandbox.js';
import type { RebuildableRow } from './repro.js';

/** What this clone knows about a row, gathered from git and the queue's records. */
export interface RowFacts {
  /** The row's base is the current target tip or one of its ancestors (as this clone knows the target). */
  baseInTarget: boolean;
  /** Each member's tips the queue recorded (its record's tip and every tip_updated); absent: no record. */
  knownTips: ReadonlyMap<string, ReadonlySet<string>>;
}

/** The tips the queue recorded for a job: its record's and each one a tip_updated line names. */
export function knownTipsOf(record: JobRecord, journal: readonly JournalEntry[]): Set<string> {
  const tips = new Set([record.tip]);
  for (const entry of journal) {
    const moved = journalDetail(entry, 'tip_updated');
    if (moved?.from) tips.add(moved.from);
    if (moved?.to) tips.add(moved.to);
  }
  return tips;
}

/**
 * Pure: why the row cannot be rebuilt here, or null when it can. Its base must be in the target's
 * history (so the policy read there is one the target had), each member's tip one the queue
 * recorded for that job (so the row does not smuggle in a commit nobody submitted), and its train
 * and batch ids ones land makes (a train id names the rebuild's temp folder).
 */
export function rowRefusal(row: RebuildableRow, facts: RowFacts): string | null {
  // The train and batch ids name the temp folder and LAND_* variables: ids as the drain makes them.
  for (const [what, id] of [
    ['train', row.train],
    ['batch', row.batch],
  ] as const) {
    if (!JOB_ID_PATTERN.test(id) || id.length > 100) return `its ${what} id ${JSON.stringify(id.slice(0, 40))} is not one land makes`;
  }
  if (!facts.baseInTarget) return `its base ${row.base.slice(0, 12)} is not in the target's history`;
  for (const [i, id] of row.members.entries()) {
    const tip = row.tips[i] as string;
    const known = facts.knownTips.get(id);
    if (!known) return `its member ${id} is not a job of this queue`;
    if (!known.has(tip)) return `its member ${id} is at ${tip.slice(0, 12)}, a tip the queue never recorded for that job`;
  }
  return null;
}

const STRICTNESS: Record<SandboxMode, number> = { off: 0, auto: 1, required: 2 };

/**
 * Pure: the sandbox the rebuild's refresh entries and gates run in. The paths and network come
 * from the current target's policy (as `land run` would use now); the mode is the stricter of the
 * target's and the base's, so a train's old policy never lowers the isolation the target asks for
 * today. `raised`: the base's own mode was less strict.
 */
export function reproSandbox(base: Policy, target: Policy, host: Pick<SandboxHost, 'defaultMode'>): { sandbox: SandboxPolicy; raised: boolean } {
  const baseMode = sandboxMode(base.sandbox, host);
  const targetMode = sandboxMode(target.sandbox, host);
  const mode = STRICTNESS[targetMode] >= STRICTNESS[baseMode] ? targetMode : baseMode;
  return { sandbox: { ...target.sandbox, mode }, raised: STRICTNESS[baseMode] < STRICTNESS[mode] };
}
