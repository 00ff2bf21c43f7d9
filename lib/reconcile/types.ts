// What `land reconcile` finds and does, as values. The checks (checks.ts) are pure: a job record
// and the evidence about it in, findings out; effects (run.ts) gather the evidence and apply them.
import type { CheckKind, JournalEntry } from '../store/index.js';

// Every kind of disagreement: declared with the job reasons (an uncertain job's reason is its check).
export { CHECK_KINDS, type CheckKind } from '../store/index.js';

/**
 * What is done about a finding: `land` / `requeue` / `cancel` settle a stranded job as recovery
 * does; `uncertain` moves the job out of the drain's reach; `note` journals the disagreement and
 * keeps the record (the journal then explains it); `metrics_row` appends the missing row;
 * `ledger` looks the line up again and records it (or notes that it is still missing).
 */
export type Repair =
  | { kind: 'land' }
  | { kind: 'requeue' }
  | { kind: 'cancel' }
  | { kind: 'uncertain' }
  | { kind: 'note' }
  | { kind: 'metrics_row' }
  | { kind: 'ledger'; gate: string; ledgerDir: string | null };

export interface Finding {
  job: string;
  check: CheckKind;
  /** One line: what disagrees with what. */
  message: string;
  repair: Repair;
  /** Identifies the finding within its kind (a train, a gate): a note names it so a later run knows it is explained. */
  key: string;
}

/** A metrics row as far as reconcile reads it. */
export interface TrainRowLite {
  train: string | null;
  commit: string | null;
  members: string[];
  landed: boolean;
}

/** What git says about a page's claims (lib/reconcile/gitEvidence.ts). */
export interface GitEvidence {
  /**
   * Commits that the target's tip contains, of those asked: the records' train commits, the tips of
   * the jobs that claim a landing (landed, uncertain) and the commits of landed metrics rows.
   */
  inTarget: ReadonlySet<string>;
  /**
   * For each job of the page, the tips merged by the merges that name it (`Land-Job: <id>`) on the
   * first-parent lines of the trains that claim a merge landing (lib/git/landMerges.ts).
   */
  landMerges: ReadonlyMap<string, readonly string[]>;
}

export interface Evidence extends GitEvidence {
  /** A live drainer holds the queue: its in_progress jobs are its own, not stranded. */
  drainerAlive: boolean;
  target: string;
  /** The journal lines of each job of the page, oldest first. */
  journal: ReadonlyMap<string, readonly JournalEntry[]>;
  /** The metrics rows naming each job of the page. */
  rows: ReadonlyMap<string, readonly TrainRowLite[]>;
  /**
   * A queue kept in a remote: each drainer keeps its own metrics rows, so a landing without a row
   * here (another clone's drainer landed it) is no disagreement.
   */
  rowsPerDrainer?: boolean;
}

/** An uncertain job: still waiting for a person, or decided now that evidence appeared. */
export interface UncertainJob {
  job: string;
  reason: string | null;
  message: string | null;
  /** Set when evidence now decides it (it goes to this state, journaled `reconciled`). */
  decided: 'landed' | null;
}

export interface PagePlan {
  findings: Finding[];
  uncertain: UncertainJob[];
}

export interface ReconcileResult {
  scanned: number;
  repaired: number;
  disagreements: number;
  nextAfter: string | null;
  /** Every disagreement found, and whether it was repaired (false under --check). */
  found: (Finding & { repaired: boolean; done: string })[];
  /** Uncertain jobs that evidence decided in this run (landed, journaled \`reconciled\`). */
  decided: string[];
  /** Jobs in the uncertain state after this run (a person decides them: --resolve). */
  uncertain: UncertainJob[];
  check: boolean;
}
