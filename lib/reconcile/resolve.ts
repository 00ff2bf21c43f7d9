// `land reconcile --resolve <id> <state>`: a person decides an uncertain job. `landed` only when
// git agrees (its train and its tip are in the target, its merge names it: checks.ts's landingRefuted); `queued` sends it back to be gated again; `failed` and
// `canceled` end it. Journaled as `resolved`, with who decided.
import { LandError } from '../errors.js';
import { refTip } from '../git/index.js';
import { applyChangesLocked, nowIso, readJobOrThrow, type JobChange, type JobPatch } from '../queue/index.js';
import type { QueueStore, JobRecord } from '../store/index.js';
import { landingRefuted } from './checks.js';
import { gitEvidence } from './gitEvidence.js';

export const RESOLVE_STATES = ['landed', 'queued', 'failed', 'canceled'] as const;
export type ResolveState = (typeof RESOLVE_STATES)[number];

export function parseResolveState(text: string | undefined): ResolveState {
  const state = RESOLVE_STATES.find((s) => s === text);
  if (!state) throw new LandError('usage', `--resolve: say what the job is: ${RESOLVE_STATES.join(', ')}${text ? ` (not ${JSON.stringify(text)})` : ''}`);
  return state;
}

function patchFor(to: ResolveState, by: string, current: JobRecord): JobPatch {
  const message = `decided ${to} by ${by} (land reconcile --resolve)`;
  switch (to) {
    case 'landed':
      return { reason: null, error: null, stopRequest: null, timestamps: { ...current.timestamps, landed: current.timestamps.landed ?? nowIso() } };
    case 'queued':
      // Gated again: a cached FAIL does not bind it, and it waits its turn like a retried job.
      return { reason: null, error: null, batch: null, requeued: false, stopRequest: null, conflictPreview: null, regate: true };
    case 'failed':
      return { reason: 'resolved', error: { code: 'resolved', message }, stopRequest: null, timestamps: { ...current.timestamps, failed: nowIso() } };
    case 'canceled':
      return { reason: 'canceled', error: null, stopRequest: null, timestamps: { ...current.timestamps, canceled: nowIso() } };
    default: {
      const never: never = to;
      throw new Error(`unknown state ${String(never)}`);
    }
  }
}

async function assertLandedInGit(cwd: string, targetRef: string, target: string, job: JobRecord): Promise<void> {
  const tip = await refTip(cwd, targetRef);
  const why = tip === null ? `${target} does not exist` : landingRefuted(job, { ...(await gitEvidence(cwd, tip, [job])), target });
  if (why === null) return;
  throw new LandError('state', `job ${job.id} cannot be resolved as landed: ${why}`, { hint: 'resolve it as queued (it is gated again), failed or canceled' });
}

export async function resolveUncertain(opts: { cwd: string; store: QueueStore; target: string; id: string; to: ResolveState; by: string }): Promise<JobRecord> {
  const seen = readJobOrThrow(opts.store, opts.id);
  if (seen.state !== 'uncertain') throw new LandError('state', `job ${seen.id} is ${seen.state}, not uncertain; there is nothing to resolve`);
  if (opts.to === 'landed') await assertLandedInGit(opts.cwd, opts.store.targetRef(opts.target), opts.target, seen);
  return opts.store.withQueueLock(() => {
    if (opts.to === 'queued') {
      const live = opts.store
        .listJobs()
        .jobs.find((job) => job.id !== seen.id && job.branch === seen.branch && (job.state === 'queued' || job.state === 'in_progress'));
      if (live) throw new LandError('state', `job ${seen.id}: its branch already has job ${live.id} ${live.state}; queuing it would queue the branch twice`);
    }
    const change: JobChange = {
      id: seen.id,
      from: ['uncertain'],
      to: opts.to,
      when: (current) => current.train === seen.train,
      event: 'resolved',
      detail: { by: opts.by, to: opts.to, was: seen.reason, message: `decided ${opts.to} (it was uncertain: ${seen.error?.message ?? seen.reason ?? '?'})` },
      patch: (current) => patchFor(opts.to, opts.by, current),
    };
    const [done] = applyChangesLocked(opts.store, [change]);
    if (!done) throw new LandError('state', `job ${seen.id} changed meanwhile; look again with land show ${seen.id}`);
    return done;
  });
}
