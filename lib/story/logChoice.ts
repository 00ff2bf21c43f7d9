// What `land log` prints for a train a job rode (pure): its own log; the log of the train that
// judged its tree when its verdict came from the verdict cache and its own log (land's header
// lines only, never published through a remote) is not on this machine; one line saying that no
// gate ran with it, for a job that failed there for a reason no gate decided (a conflict: left out of
// a train whose other members were gated); or "gone".
import type { JobRecord } from '../store/index.js';

/** The train's own log on this machine: with text, empty (no gate wrote to it), or absent. */
export type OwnLog = 'present' | 'empty' | 'absent';

export type LogChoice = { kind: 'own' } | { kind: 'judging' } | { kind: 'no_gate'; line: string } | { kind: 'gone' };

/** The reasons a gate decides (jobReason.ts): a job failed for any other ran no gate in its last train. */
const GATE_REASONS: ReadonlySet<string> = new Set(['gate', 'timeout', 'no_ledger_line', 'refresh', 'policy_refused']);

/** The line saying no gate ran with the job in `train` (its latest), when it failed there for a reason no gate decided; else null. */
export function noGateLine(job: JobRecord, train: string, latest: boolean): string | null {
  if (!latest || job.state !== 'failed' || job.reason === null || GATE_REASONS.has(job.reason)) return null;
  const message = job.error?.message ? `: ${job.error.message}` : '';
  return `no gate ran with ${job.id} in train ${train}: it failed (${job.reason})${message} (land why ${job.id} tells the story)`;
}

export interface LogFacts {
  own: OwnLog;
  /** The train whose gates judged this train's tree (verdict cache), or null. */
  judgedBy: string | null;
  /** Whether that train's log is on this machine. */
  judgingHere: boolean;
  /** noGateLine's answer. */
  noGate: string | null;
  /** The job was left out of the train (it failed on a conflict): the train's gates were the others'. */
  leftOut: boolean;
}

export function chooseLog(facts: LogFacts): LogChoice {
  if (facts.own === 'absent' && facts.judgedBy !== null && facts.judgingHere) return { kind: 'judging' };
  // A job left out of its latest train (a conflict) ran no gate there, even when the train's log
  // holds the gates of the members that stayed: that log is not this job's story.
  if (facts.noGate !== null && (facts.own !== 'present' || facts.leftOut)) return { kind: 'no_gate', line: facts.noGate };
  if (facts.own === 'absent') return { kind: 'gone' };
  return { kind: 'own' };
}
