// `land submit`: queue a branch at its current tip. Idempotent for the same branch and tip (a job
// of that tip that failed or was canceled is queued again, as `land retry` does); a new tip of a
// queued branch replaces the queued job's tip; refusals name what is wrong.
import { LandError } from '../errors.js';
import { branchTip, isAncestor, isValidBranchName, refTip, userIdentity } from '../git/index.js';
import type { QueueStore, JobRecord } from '../store/index.js';
import { nowIso } from './clock.js';
import { allocateJobIdLocked, jobsOfBranchLocked, runningJobsLocked, syncIndexLocked } from './activeSet.js';
import { reopenChange, stopRequestChange, tipUpdateChange } from './changes.js';
import { latestJob } from './lookup.js';
import { isReopenable, reopenedFrom, type ReopenedFrom } from './reopen.js';
import { applyChangesLocked, createJobLocked, type JobPatch } from './transition.js';

export interface SubmitRequest {
  cwd: string;
  branch: string;
  target: string;
  title?: string;
  urgent?: boolean;
}

export type SubmitOutcome =
  | { kind: 'created'; job: JobRecord; preempted: string[] }
  /** Already queued, or already riding a train (`job.state` says which). */
  | { kind: 'existing'; job: JobRecord }
  /** The same branch at the same tip had failed or was canceled: that job is queued again. */
  | { kind: 'requeued'; job: JobRecord; previous: ReopenedFrom; preempted: string[] }
  | { kind: 'tip_updated'; job: JobRecord; previousTip: string };

/**
 * The longest title a job takes, in characters (Unicode code points): room for a pull request's
 * title (GitHub allows 256), not for a file pasted by mistake. docs/commands.md#land-submit.
 */
export const TITLE_MAX_CHARS = 256;

/** A title longer than TITLE_MAX_CHARS is refused (exit 2) before anything is queued. */
export function assertTitle(title: string | undefined): void {
  if (title === undefined) return;
  const length = [...title].length;
  if (length > TITLE_MAX_CHARS) {
    throw new LandError('usage', `--title is ${length} characters long; the limit is ${TITLE_MAX_CHARS}`, {
      hint: 'a title is one short line; the branch and its commits carry the rest',
    });
  }
}

export async function assertBranchName(cwd: string, branch: string): Promise<void> {
  if (!(await isValidBranchName(cwd, branch))) {
    throw new LandError('usage', `invalid branch name ${JSON.stringify(branch)}: git refuses it (see git check-ref-format)`);
  }
}

export function newJobRecord(fields: {
  id: string;
  branch: string;
  tip: string;
  title: string;
  submitter: string;
  urgent: boolean;
  target?: string;
  /** The failed job of the branch this one follows (jobRecord.ts `follows`). */
  follows?: string;
}): JobRecord {
  return {
    version: 1,
    id: fields.id,
    ...(fields.target ? { target: fields.target } : {}),
    branch: fields.branch,
    tip: fields.tip,
    title: fields.title,
    submitter: fields.submitter,
    priority: fields.urgent ? 'urgent' : 'normal',
    order: fields.id,
    requeued: false,
    state: 'queued',
    reason: null,
    error: null,
    attempts: 0,
    requeues: {},
    batch: null,
    stopRequest: null,
    conflictPreview: null,
    verdict: null,
    base: null,
    tree: null,
    train: null,
    landedVia: null,
    gateLog: null,
    ...(fields.follows ? { follows: fields.follows } : {}),
    gate: null,
    timestamps: { queued: nowIso() },
  };
}

/** The target a job lands on; records written before jobs named one belong to the default target. */
export function jobTarget(job: JobRecord, fallback: string): string {
  return job.target ?? fallback;
}

export async function submitJob(store: QueueStore, req: SubmitRequest): Promise<SubmitOutcome> {
  assertTitle(req.title);
  await assertBranchName(req.cwd, req.branch);
  if (req.branch === req.target) {
    throw new LandError('state', `cannot submit the target branch "${req.target}" to itself`, { hint: 'submit a feature branch' });
  }
  const tip = await branchTip(req.cwd, req.branch);
  if (tip === null) throw new LandError('not_found', `branch ${JSON.stringify(req.branch)} does not exist`);
  const targetTip = await refTip(req.cwd, store.targetRef(req.target));
  if (targetTip === null) throw new LandError('config', `target branch "${req.target}" does not exist`);
  if (await isAncestor(req.cwd, tip, targetTip)) {
    throw new LandError('state', `branch ${JSON.stringify(req.branch)} at ${tip.slice(0, 12)} is already contained in ${req.target}`, {
      hint: 'nothing to land',
    });
  }
  const submitter = await userIdentity(req.cwd);

  return store.withQueueLock((): SubmitOutcome => {
    // The branch's own jobs and the running ones, through the index: never every record ever written.
    const sync = syncIndexLocked(store);
    const sameBranch = jobsOfBranchLocked(store, sync, req.branch).filter((job) => jobTarget(job, req.target) === req.target);
    const running = () => runningJobsLocked(store, sync.index);
    const isLive = (job: JobRecord) => job.state === 'queued' || job.state === 'in_progress';
    const live = sameBranch.find((job) => isLive(job) && job.tip === tip) ?? sameBranch.find(isLive);
    if (live?.tip === tip) return { kind: 'existing', job: live };
    const uncertain = sameBranch.find((job) => job.state === 'uncertain' && job.tip === tip);
    if (uncertain) {
      throw new LandError('state', `job ${uncertain.id} for ${JSON.stringify(req.branch)} at this tip is uncertain; it was not queued again`, {
        hint: `decide it first: land reconcile --resolve ${uncertain.id} landed|queued|failed|canceled`,
      });
    }
    if (live?.state === 'in_progress') {
      throw new LandError(
        'state',
        `job ${live.id} for ${JSON.stringify(req.branch)} is riding a train at ${live.tip.slice(0, 12)}; the new tip was not queued`,
        {
          hint: 'submit again once that job has finished',
        },
      );
    }
    if (live) {
      const [job] = applyChangesLocked(store, [tipUpdateChange(live, tip, req.title)]);
      return { kind: 'tip_updated', job: job as JobRecord, previousTip: live.tip };
    }

    // The same branch at the same tip ended failed or canceled: that job is queued again, as
    // `land retry` would (one job per branch and tip; the newest one if older records repeat it).
    const ended = sameBranch
      .filter(isReopenable)
      .filter((job) => job.tip === tip)
      .sort((a, b) => (a.id < b.id ? 1 : -1))[0];
    if (ended) {
      const extra: JobPatch = { ...(req.title ? { title: req.title } : {}), ...(req.urgent ? { priority: 'urgent' as const } : {}) };
      const [job] = applyChangesLocked(store, [reopenChange(ended, 'resubmitted', submitter, extra)]);
      const preempted = req.urgent ? preemptRunning(store, running(), ended.id, submitter) : [];
      return { kind: 'requeued', job: job as JobRecord, previous: reopenedFrom(ended), preempted };
    }

    const id = allocateJobIdLocked(store, sync.index);
    const follows = failedPredecessor(sameBranch);
    const job = newJobRecord({
      id,
      branch: req.branch,
      tip,
      title: req.title ?? req.branch,
      submitter,
      urgent: req.urgent ?? false,
      target: req.target,
      ...(follows ? { follows } : {}),
    });
    createJobLocked(store, job, { branch: req.branch, tip, ...(follows ? { follows } : {}) });
    const preempted = req.urgent ? preemptRunning(store, running(), id, submitter) : [];
    return { kind: 'created', job, preempted };
  });
}

/**
 * The job a new submission of a branch follows: the branch's latest job on this target, when it
 * failed (a new tip after a failure: `land why` and `land show` say "follows j-..."); else none.
 */
export function failedPredecessor(sameBranch: readonly JobRecord[]): string | null {
  const latest = latestJob(sameBranch);
  return latest?.state === 'failed' ? latest.id : null;
}

/** An urgent job asks the running train's normal members to step aside at the next boundary. */
function preemptRunning(store: QueueStore, jobs: readonly JobRecord[], forJob: string, by: string): string[] {
  const running = jobs.filter((other) => other.state === 'in_progress' && other.priority === 'normal' && !other.stopRequest);
  applyChangesLocked(
    store,
    running.map((other) => stopRequestChange(other.id, { kind: 'preempt', by, forJob })),
  );
  return running.map((other) => other.id);
}
