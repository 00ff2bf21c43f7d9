// The failure story of one job (`land why`): what happened to it, in order, each step one event.
// Events are data (printed as they are under --json); lib/cli/describeStory.ts (renderStory) turns them into lines.
import type { JobState } from '../store/index.js';

export interface MemberRef {
  id: string;
  /** Null when the train's row predates branch names. */
  branch: string | null;
}

export interface GateOutcome {
  name: string;
  /** "exit 1", "timed out", "signal SIGKILL", "could not start: ..." */
  status: string;
  seconds: number | null;
}

export interface BisectionStep {
  train: string;
  attempt: number | null;
  members: MemberRef[];
  verdict: string;
  cached: boolean;
  landed: boolean;
  /** This job rode the step's train. */
  rode: boolean;
}

interface At {
  /** ISO time of the journal line or metrics row the event comes from. */
  at: string | null;
}

export type StoryEvent =
  | (At & {
      kind: 'submitted';
      by: string;
      branch: string;
      tip: string | null;
      title: string | null;
      fromRecord: boolean;
      /** The failed job of the same branch this one was submitted after, at a new tip (job record `follows`). */
      follows: string | null;
    })
  | (At & { kind: 'tip_updated'; from: string | null; to: string | null })
  | (At & {
      kind: 'rode';
      train: string;
      batch: string | null;
      attempt: number | null;
      /** "merge" or "fast-forward". */
      trainKind: string | null;
      base: string | null;
      members: MemberRef[];
      commit: string | null;
      tree: string | null;
    })
  | (At & {
      kind: 'verdict';
      train: string;
      verdict: string;
      /** Why a FAIL or INFRA: gate, timeout, no_ledger_line, refresh, policy_refused, gate_not_started, ... */
      reason: string | null;
      cached: boolean;
      /** The train that judged this tree, when the verdict came from the cache. */
      cachedFrom: string | null;
      gateSeconds: number | null;
      /** Every gate that ran, in order. */
      gates: GateOutcome[];
      /** The gate that decided a FAIL or INFRA (null for a PASS, or when nothing says). */
      failing: GateOutcome | null;
      /** The log that holds the gate's output (the judging train's, for a cached verdict). */
      log: string | null;
      logTrain: string | null;
      /** Whether `log` is a file on this machine (set by readStory; a path on the drainer's host is not). */
      logHere?: boolean;
      /**
       * The excerpt of the failing gate's output (the lines that carry the failure, then its last
       * lines, lib/landing/gates/excerpt.ts); null when not read (or a PASS).
       */
      output: string[] | null;
      /** The output is the same as the verdict of this earlier train (shown there); absent when not. */
      sameOutputAs?: string;
      /** Later trains whose verdicts repeat this output (shown once, here); absent when none. */
      sameOutputIn?: string[];
      /**
       * Trusted paths (policy `trusted`) the train changes, which its gates ran in the target's
       * version (`restored`), and those this job's own merge changes (`job`); null when none.
       */
      trusted?: { restored: string[]; job: string[] } | null;
      /** Gates the policy marks advisory that failed in this run: recorded, not counted; absent when none did. */
      advisoryFailed?: GateOutcome[];
    })
  | (At & { kind: 'bisection'; batch: string; steps: BisectionStep[] })
  | (At & { kind: 'conflict'; train: string | null; against: string | null; paths: string[]; outcome: 'requeued' | 'failed' })
  | (At & { kind: 'stop_requested'; stop: string; by: string | null; forJob: string | null })
  | (At & { kind: 'requeued'; reason: string; train: string | null })
  /** Reopened by a person: `land retry`, or a submit of the same branch at the same tip. */
  | (At & { kind: 'retried'; how: 'retried' | 'resubmitted'; by: string | null; previousState: string | null; previousReason: string | null })
  | (At & { kind: 'landed'; train: string | null; commit: string | null; via: string | null; how: string })
  | (At & { kind: 'failed'; train: string | null; reason: string | null; code: string | null; message: string | null })
  | (At & { kind: 'canceled'; by: string | null })
  | (At & { kind: 'note'; event: string; text: string })
  | (At & {
      kind: 'now';
      state: JobState;
      /** Queued: its place in landing order (1 = next). */
      position: number | null;
      /** Riding: the train and the log being written; landed: the train it landed in. */
      train: string | null;
      log: string | null;
      commit: string | null;
      via: string | null;
      reason: string | null;
      message: string | null;
      by: string | null;
      /**
       * Failed: the excerpt of the failing gate's output as the job record keeps it (`gateLogTail`:
       * its failure lines, then its last lines; lib/landing/gates/excerpt.ts), present when the
       * record has them: the one account of the failure's output on a clone that
       * does not hold the log (gate logs stay on the drainer).
       */
      gateLogTail?: string[];
    });

export interface Story {
  job: { id: string; branch: string; tip: string; title: string; submitter: string; state: JobState };
  events: StoryEvent[];
  /** Trains the job rode, oldest first. */
  trains: string[];
  /** Journal lines that mention the job but could not be read (1-based line numbers); skipped. */
  skippedJournalLines: number[];
}
