// What the reporters look up besides the events: branch names of job ids, the queue's length and
// the gate history. Backed by the store (read-only); cached where the answer cannot change.
import { gateHistoryFromMetrics, type GateHistory, type GatesInForce } from '../../landing/plan/eta.js';
import { activeEntries, jobTarget, listActiveJobsSync } from '../../queue/index.js';
import type { JobNames } from '../../landing/events.js';
import type { QueueStore } from '../../store/index.js';
import { printable } from '../../text/safeText.js';

export interface ProgressSource {
  /** The branch of a job, or null when its record cannot be read. */
  branchOf(job: string): string | null;
  /** Queued jobs of `target` (all targets when null); null when the records cannot be listed. */
  queuedCount(target: string | null): number | null;
  /** Recorded gate durations (metrics.jsonl), read once. */
  gateHistory(): GateHistory;
}

/** `inForce`: the policy's gates, so "expected ~Ns" counts only runs of a gate's current command (null: every run). */
export function storeSource(store: QueueStore, inForce: GatesInForce | null = null): ProgressSource {
  const branches = new Map<string, string>(); // a job's branch never changes: cache it
  let history: GateHistory | null = null;
  return {
    branchOf(job) {
      const known = branches.get(job);
      if (known !== undefined) return known;
      try {
        const record = store.readJob(job);
        if (!record) return null;
        branches.set(job, record.branch);
        return record.branch;
      } catch {
        return null; // a corrupt record is reported by the drainer; the sentence shows the id
      }
    },
    queuedCount(target) {
      try {
        // The index's entries: no record is read per event (a full listing only when the index must be rebuilt).
        const entries = activeEntries(store);
        if (entries) {
          for (const [id, entry] of Object.entries(entries)) if (entry.branch) branches.set(id, entry.branch);
          return Object.values(entries).filter(
            (entry) => entry.state === 'queued' && entry.branch !== '' && (target === null || (entry.target ?? target) === target),
          ).length;
        }
        const { jobs } = listActiveJobsSync(store);
        for (const job of jobs) branches.set(job.id, job.branch);
        return jobs.filter((job) => job.state === 'queued' && (target === null || jobTarget(job, target) === target)).length;
      } catch {
        return null;
      }
    },
    gateHistory() {
      if (!history) {
        try {
          history = gateHistoryFromMetrics(store.readMetrics().rows, inForce);
        } catch {
          history = { trainSeconds: [], gateSeconds: {} };
        }
      }
      return history;
    },
  };
}

/** A job's branch as the reporters print it: escaped (a branch may hold bidirectional characters). */
export function safeNames(source: ProgressSource): JobNames {
  return (job) => {
    const branch = source.branchOf(job);
    return branch === null ? null : printable(branch);
  };
}
