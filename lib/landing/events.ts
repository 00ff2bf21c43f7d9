// What the drainer reports as it works: one event per step, printed as a JSON line under --json
// and as a sentence otherwise. Events are reports; the journal and the records are the state.
import { rerunEvidenceText, type RerunReason } from './plan/flakyPlan.js';

export type DrainEvent =
  | { type: 'drain_started'; pid: number; target: string }
  | { type: 'recovered'; job: string; to: 'landed' | 'queued'; train: string | null }
  | { type: 'corrupt_record'; file: string; problem: string }
  /** A job record file had vanished; it was rebuilt from the journal (lib/queue/rebuild.ts). */
  | { type: 'record_rebuilt'; job: string; state: string }
  | { type: 'waiting_for_company'; job: string; seconds: number }
  | { type: 'fast_path'; job: string; source: string; tree: string }
  /** `onTrain`: a speculative train (batch.parallel above 1) is built on the train ahead of it, named here. */
  | { type: 'train_built'; train: string; attempt: number; kind: string; base: string; commit: string; tree: string; members: string[]; onTrain?: string }
  /**
   * A speculative train whose train ahead (`after`) did not land: its gates were stopped (or its
   * verdict dropped) and its members went back to the queue as they were, judged by nothing.
   */
  | { type: 'train_abandoned'; train: string; after: string; members: string[]; why: string }
  /**
   * A probe: the first half of the bisection train `for`, built on the same base and gated in a
   * spare slot (batch.parallel) in case that train fails. Not a train of jobs: its verdict is kept
   * only when the train splits into exactly this half (docs/drain.md#parallel-and-speculative-trains).
   */
  /** `past`: the train planned past the lone head `for`, in case that head fails (a probe of its own first part has none). */
  | { type: 'probe_started'; train: string; for: string; assumes: 'fails' | 'passes'; past?: boolean; members: string[]; commit: string }
  /**
   * Optimistic clearing (policy flaky.clearing): train `train` failed (gate `gate`, `status`) and
   * train `by`, built on it, passed: its members (`members`) land with `by`'s, in one landing.
   */
  | { type: 'cleared'; train: string; by: string; members: string[]; gate: string; status: string }
  /** flaky.clearing: the train `by`, built on the failed train `train`, passed, but its PASS cannot clear it (`why`: pipeline/clearing.ts clearingRefusal). */
  | { type: 'clearing_refused'; train: string; by: string; why: string }
  /** A probe whose assumption about train `for` did not come true: its gates were stopped and nothing it found is kept (its row is VOID). */
  | { type: 'probe_dropped'; train: string; for: string }
  | { type: 'member_skipped'; train: string; job: string; against: 'target' | 'train'; paths: string[] }
  | { type: 'gate_started'; train: string; gate: string; log: string }
  /** `advisory`: the gate failed and the policy marks it advisory: its failure is recorded, not counted. */
  | { type: 'gate_finished'; train: string; gate: string; status: string; seconds: number; advisory?: boolean }
  | { type: 'verdict'; train: string; verdict: string; cached: boolean; reason: string | null; seconds: number; log: string | null }
  | { type: 'landed'; train: string; commit: string; via: string; members: string[] }
  | { type: 'bisected'; train: string; attempt: number; first: string[]; second: string[] }
  | { type: 'requeued'; train: string | null; jobs: string[]; reason: string }
  /** `gate` and `status`: the gate whose failure failed the job (absent when no gate decided: a conflict, a bad tip). */
  | { type: 'failed'; job: string; reason: string; message: string; gate?: string; status?: string }
  | { type: 'canceled'; job: string }
  | { type: 'window'; before: number; after: number; event: 'PASS' | 'FAIL' }
  | { type: 'published'; remote: string; commit: string }
  | { type: 'publish_rejected'; remote: string; message: string }
  | { type: 'stopping'; why: string }
  | { type: 'idle'; target: string; idleExitSeconds: number | null; polling: boolean }
  | { type: 'resumed'; jobs: number; idleSeconds: number }
  | { type: 'watch_ended'; why: 'idle_exit' | 'signal'; idleSeconds: number }
  | { type: 'warning'; message: string }
  /** After a train that tested nothing: the drainer waits before the next one. */
  | { type: 'backing_off'; seconds: number; reason: string }
  /**
   * The target tip is gated: a job (`job`) failed alone, or (`first`) before the drain's first train,
   * because a drain that stopped for it voided its FAIL (plan/redEpisode.ts); `job` is then the head job.
   */
  | { type: 'checking_target'; target: string; base: string; train: string; job: string; first?: boolean }
  /** A gate failed and the train's gates run again on the same tree (run `run`): why, under the policy's flaky rule. */
  | ({ type: 'gate_rerun'; train: string; job: string; jobs: number; run: number; gate: string; status: string } & RerunReason)
  /** What the target tip's own gates say (PASS, FAIL, or UNKNOWN when they could not run). */
  | {
      type: 'target_checked';
      target: string;
      base: string;
      verdict: 'PASS' | 'FAIL' | 'UNKNOWN';
      cached: boolean;
      gate: string | null;
      status: string | null;
      log: string | null;
      /** The check made before the first train (checking_target's `first`). */
      first?: boolean;
    };

export type Emit = (event: DrainEvent) => void;

const short = (sha: string) => sha.slice(0, 12);

function describeTargetCheck(event: DrainEvent & { type: 'target_checked' }): string {
  const at = `${event.target} at ${short(event.base)}`;
  const cached = event.cached ? ' (verdict cache)' : '';
  switch (event.verdict) {
    case 'PASS':
      return `  ${at} passes its own gates${cached}: ${event.first ? 'the queue drains' : "the job's change is the cause"}`;
    case 'FAIL':
      return `  ${at} fails gate ${event.gate ?? '?'} (${event.status ?? 'FAIL'}) on its own${cached}${event.log ? `; log ${event.log}` : ''}`;
    case 'UNKNOWN':
      return `  ${at} could not be gated (${event.status ?? 'unknown'}); ${event.first ? 'the queue drains' : "the job's own verdict stands"}`;
    default: {
      const never: never = event.verdict;
      return String(never);
    }
  }
}

/** The branch a job id stands for, or null when it is not known (a missing or corrupt record). */
export type JobNames = (job: string) => string | null;

const noNames: JobNames = () => null;

/** `feature/login (j-20261130-0001)`, or the bare id when its branch is not known. */
export function jobLabel(job: string, names: JobNames): string {
  const branch = names(job);
  return branch === null || branch === job ? job : `${branch} (${job})`;
}

/** Branch names only (ids where unknown): for train lines, where the ids would drown the names. */
const branches = (jobs: readonly string[], names: JobNames) => jobs.map((job) => names(job) ?? job).join(' ');
const labels = (jobs: readonly string[], names: JobNames) => jobs.map((job) => jobLabel(job, names)).join(', ');

/** A failure message already names its gate ("gate test: exit 1"); other reasons are said first. */
const failure = (reason: string, message: string) => (message.startsWith('gate ') || message.startsWith(`${reason}:`) ? message : `${reason}: ${message}`);

/**
 * One human sentence per event (several lines for a landing of several jobs, one per job).
 * Pure: branch names come from `names`, which the caller backs with the job records.
 */
export function describeEvent(event: DrainEvent, names: JobNames = noNames): string {
  const who = (job: string) => jobLabel(job, names);
  switch (event.type) {
    case 'drain_started':
      return `draining the queue onto ${event.target} (pid ${event.pid})`;
    case 'recovered':
      return `recovered ${who(event.job)} from a stopped drainer: ${event.to}`;
    case 'corrupt_record':
      return `skipped corrupt job record ${event.file}: ${event.problem}`;
    case 'record_rebuilt':
      return `job record of ${who(event.job)} was missing: rebuilt from the journal (${event.state})`;
    case 'waiting_for_company':
      return `${who(event.job)} waits up to ${event.seconds}s for company`;
    case 'fast_path':
      return `${who(event.job)} is already proven (${event.source}); it lands alone without a gate`;
    case 'train_built':
      return `train ${event.train} round ${event.attempt}: ${event.members.length} member(s) [${branches(event.members, names)}] ${event.kind} on ${short(event.base)}${event.onTrain ? ` (speculative, on train ${event.onTrain})` : ''}`;
    case 'train_abandoned':
      return `  train ${event.train} abandoned (${event.why}): [${branches(event.members, names)}] back to the queue, not judged`;
    case 'probe_started':
      if (event.past) return `  probing [${branches(event.members, names)}] as ${event.train}, the train planned past train ${event.for}, in case it fails`;
      return event.assumes === 'fails'
        ? `  probing [${branches(event.members, names)}] as ${event.train}, the first part of train ${event.for} in case it fails`
        : `  probing [${branches(event.members, names)}] as ${event.train} on train ${event.for}, in case it passes`;
    case 'cleared':
      return `  train ${event.train} failed (gate ${event.gate}: ${event.status}), but train ${event.by} built on it passed: [${branches(event.members, names)}] land with it (flaky.clearing)`;
    case 'probe_dropped':
      return `  probe ${event.train} dropped: train ${event.for} did not end as it assumed; nothing it found is kept`;
    case 'clearing_refused':
      return `  train ${event.train} not cleared by train ${event.by}, which passed: ${event.why} (flaky.clearing)`;
    case 'member_skipped':
      return `  ${who(event.job)} conflicts with the ${event.against} (${event.paths.join(', ')})`;
    case 'gate_started':
      return `  gate ${event.gate} started; log ${event.log}`;
    case 'gate_finished':
      return `  gate ${event.gate}: ${event.status} (${event.seconds}s${event.advisory ? '; advisory, not counted' : ''})`;
    case 'verdict':
      return `  verdict ${event.verdict}${event.cached ? ' (cached)' : ''}${event.reason ? ` (${event.reason})` : ''}${event.log ? `  log ${event.log}` : ''}`;
    case 'landed':
      return event.members.map((job) => `  landed ${who(job)} as ${short(event.commit)} (${event.via})`).join('\n');
    case 'bisected':
      return `  bisecting: [${branches(event.first, names)}] next, [${branches(event.second, names)}] back to the head of the queue`;
    case 'requeued':
      return `  requeued ${labels(event.jobs, names)}: ${event.reason}`;
    case 'failed':
      return `  failed ${who(event.job)}: ${failure(event.reason, event.message)}`;
    case 'canceled':
      return `  canceled ${who(event.job)}`;
    case 'window':
      return `  window ${event.before} -> ${event.after}`;
    case 'published':
      return `  pushed ${short(event.commit)} to ${event.remote}`;
    case 'publish_rejected':
      return `  push to ${event.remote} rejected: ${event.message} (retried after the next landing)`;
    case 'stopping':
      return `stopping: ${event.why}`;
    case 'warning':
      return `warning: ${event.message}`;
    case 'idle':
      return `queue empty; waiting for submissions (${event.idleExitSeconds === null ? 'until stopped' : `idle-exit in ${event.idleExitSeconds}s`}${event.polling ? '; polling' : ''})`;
    case 'resumed':
      return `resuming after ${event.idleSeconds}s idle: ${event.jobs} runnable job(s)`;
    case 'watch_ended':
      return event.why === 'idle_exit' ? `queue empty for ${event.idleSeconds}s; exiting (--idle-exit)` : `stopped while idle (no train was running)`;
    case 'backing_off':
      return `infrastructure failure (${event.reason}); waiting ${event.seconds}s before the next train`;
    case 'gate_rerun':
      return `  ${rerunLine(event, who(event.job))}`;
    case 'checking_target':
      if (event.first)
        return `  gating ${event.target} itself at ${short(event.base)} (train ${event.train}) first: its FAIL was voided when a drain stopped for it`;
      return `  ${who(event.job)} failed alone; gating ${event.target} itself at ${short(event.base)} (train ${event.train}) to tell a red target from a culprit`;
    case 'target_checked':
      return describeTargetCheck(event);
    default: {
      const never: never = event;
      return JSON.stringify(never);
    }
  }
}

/** `gate_rerun` as a progress line: who failed, and why its tree is gated again. */
function rerunLine(event: Extract<DrainEvent, { type: 'gate_rerun' }>, job: string): string {
  const riders = event.jobs > 1 ? `train ${event.train} (${event.jobs} jobs)` : job;
  const failed = `${riders} failed${event.jobs > 1 ? '' : ' alone'} (gate ${event.gate}: ${event.status})`;
  if (event.rule === 'retries') return `${failed}; its gates run again on the same tree (run ${event.run}, retries.flaky ${event.allowance})`;
  return `${failed}; its gates run again on the same tree (run ${event.run}): ${rerunEvidenceText(event.jobs, event.posterior, event.threshold, event.sibling)}`;
}
