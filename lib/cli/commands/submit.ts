import type { Command } from 'commander';
import { LandError } from '../../errors.js';
import { currentBranch } from '../../git/index.js';
import { submitJob, type SubmitOutcome } from '../../queue/index.js';
import { TITLE_MAX_CHARS } from '../../queue/submit.js';
import type { JobRecord, QueueStore } from '../../store/index.js';
import { action } from '../action.js';
import { showName, short } from '../output.js';
import { requeuedLine } from '../requeueText.js';
import { waitForJob } from '../waitForJob.js';

interface SubmitOptions {
  title?: string;
  urgent?: boolean;
  json?: boolean;
  wait?: boolean;
  timeout?: string;
}

function describeOutcome(outcome: SubmitOutcome): string {
  const job = outcome.job;
  switch (outcome.kind) {
    case 'created': {
      const line = `queued ${job.id}: ${showName(job.branch)} at ${short(job.tip)}${job.priority === 'urgent' ? ' (urgent)' : ''}${job.follows ? `; follows failed ${job.follows}` : ''}`;
      return outcome.preempted.length ? `${line}\nasked ${outcome.preempted.join(', ')} to step aside at the next train boundary` : line;
    }
    case 'existing':
      return job.state === 'in_progress'
        ? `already riding a train as ${job.id}: ${showName(job.branch)} at ${short(job.tip)}`
        : `already queued as ${job.id}: ${showName(job.branch)} at ${short(job.tip)}`;
    case 'requeued': {
      const line = requeuedLine(job, outcome.previous);
      return outcome.preempted.length ? `${line}\nasked ${outcome.preempted.join(', ')} to step aside at the next train boundary` : line;
    }
    case 'tip_updated':
      return `updated ${job.id}: ${showName(job.branch)} ${short(outcome.previousTip)} -> ${short(job.tip)}`;
    default: {
      const never: never = outcome;
      throw new Error(`unknown outcome ${JSON.stringify(never)}`);
    }
  }
}

/** One `--json` line: the outcome, the job, and what a requeued job was before. */
function jsonLine(outcome: SubmitOutcome, job: JobRecord): Record<string, unknown> {
  return { outcome: outcome.kind, job, ...(outcome.kind === 'requeued' ? { previous: outcome.previous } : {}) };
}

/** What `--wait` says while it waits: whether a drainer runs now (a remote queue's live lease, or this clone's drain lock). */
async function waitingNote(store: QueueStore, id: string): Promise<string> {
  return (await store.drainerRunning())
    ? `waiting for ${id} to land (a drainer is draining the queue)`
    : `waiting for ${id} to land (no drainer runs now: nothing lands until one runs land run)`;
}

export function registerSubmit(program: Command): void {
  program
    .command('submit')
    .argument('[branches...]', 'branches to queue, in this order (default: the current branch)')
    .description('queue branches at their current tips (the same branch and tip again returns the same job; if it failed or was canceled, it is queued again)')
    .option('--title <text>', `a title for the job (default: the branch name; at most ${TITLE_MAX_CHARS} characters, shown escaped); one branch only`)
    .option('--urgent', 'land before normal jobs; asks a running train of normal jobs to step aside')
    .option('--wait', 'wait until the jobs are landed, failed or canceled; exit 0 only if all landed')
    .option('--timeout <seconds>', 'with --wait, give up after this many seconds')
    .option('--json', 'print { outcome, job } as JSON, one line per branch (outcome: created, existing, tip_updated or requeued)')
    .action(
      action<SubmitOptions>(async (ctx, opts, args) => {
        const current = args.length ? null : await currentBranch(ctx.cwd);
        const branches = args.length ? args : current ? [current] : [];
        if (!branches.length) throw new LandError('usage', 'HEAD is detached; name the branch to submit');
        if (opts.title !== undefined && branches.length > 1) throw new LandError('usage', '--title names one job; submit one branch with it');
        if (opts.timeout !== undefined && !opts.wait) throw new LandError('usage', '--timeout only goes with --wait');
        const timeout = opts.timeout === undefined ? undefined : Number(opts.timeout);
        if (timeout !== undefined && !(timeout > 0))
          throw new LandError('usage', `--timeout: expected a positive number of seconds, got ${JSON.stringify(opts.timeout)}`);
        const { target } = await ctx.policy();
        const store = await ctx.store();
        // In order, one at a time: the queue order is the order given. The first refusal stops
        // here; branches before it stay queued (each was reported).
        const outcomes: SubmitOutcome[] = [];
        for (const branch of branches) {
          const outcome = await submitJob(store, { cwd: ctx.cwd, branch, target, title: opts.title, urgent: opts.urgent });
          outcomes.push(outcome);
          if (ctx.out.json && !opts.wait) ctx.out.emit(jsonLine(outcome, outcome.job));
          ctx.out.say(describeOutcome(outcome));
        }
        if (!opts.wait) return;
        const notLanded: string[] = [];
        for (const outcome of outcomes) {
          const job = outcome.job;
          const waiting = await waitingNote(store, job.id);
          const final = await waitForJob(store, job.id, { timeoutSeconds: timeout, onWaiting: () => ctx.out.note(waiting) });
          if (ctx.out.json) ctx.out.emit(jsonLine(outcome, final));
          const landedAt = final.state === 'landed' && final.train ? ` in ${target} at ${final.train.slice(0, 12)}` : '';
          ctx.out.say(`${final.id}: ${final.state}${landedAt}${final.reason ? ` (${final.reason})` : ''}`);
          if (final.state !== 'landed') notLanded.push(`${final.id} ended ${final.state}${final.reason ? `: ${final.reason}` : ''}`);
        }
        if (notLanded.length) throw new LandError('not_landed', `job ${notLanded.join('; ')}`);
      }),
    );
}
