import type { Command } from 'commander';
import { LandError } from '../../errors.js';
import { currentBranch } from '../../git/index.js';
import { submitJob } from '../../queue/index.js';
import { action } from '../action.js';
import { showName, short } from '../output.js';
import { waitForJob } from '../waitForJob.js';

interface SubmitOptions {
  title?: string;
  urgent?: boolean;
  json?: boolean;
  wait?: boolean;
  timeout?: string;
}

export function registerSubmit(program: Command): void {
  program
    .command('submit')
    .argument('[branch]', 'branch to queue (default: the current branch)')
    .description('queue a branch at its current tip (same branch and tip again returns the same job)')
    .option('--title <text>', 'a title for the job (default: the branch name)')
    .option('--urgent', 'land before normal jobs; asks a running train of normal jobs to step aside')
    .option('--wait', 'wait until the job is landed, failed or canceled; exit 0 only if it landed')
    .option('--timeout <seconds>', 'with --wait, give up after this many seconds')
    .option('--json', 'print the job as JSON')
    .action(
      action<SubmitOptions>(async (ctx, opts, args) => {
        const branch = args[0] ?? (await currentBranch(ctx.cwd));
        if (!branch) throw new LandError('usage', 'HEAD is detached; name the branch to submit');
        const { target } = await ctx.policy();
        const store = await ctx.store();
        const outcome = await submitJob(store, { cwd: ctx.cwd, branch, target, title: opts.title, urgent: opts.urgent });
        const job = outcome.job;
        if (ctx.out.json && !opts.wait) ctx.out.emit({ outcome: outcome.kind, job });
        switch (outcome.kind) {
          case 'created':
            ctx.out.say(`queued ${job.id}: ${showName(job.branch)} at ${short(job.tip)}${job.priority === 'urgent' ? ' (urgent)' : ''}`);
            if (outcome.preempted.length) ctx.out.say(`asked ${outcome.preempted.join(', ')} to step aside at the next train boundary`);
            break;
          case 'existing':
            ctx.out.say(`already queued as ${job.id} (${job.state}): ${showName(job.branch)} at ${short(job.tip)}`);
            break;
          case 'tip_updated':
            ctx.out.say(`updated ${job.id}: ${showName(job.branch)} ${short(outcome.previousTip)} -> ${short(job.tip)}`);
            break;
          default: {
            const never: never = outcome;
            throw new Error(`unknown outcome ${JSON.stringify(never)}`);
          }
        }
        if (!opts.wait) return;
        const timeout = opts.timeout === undefined ? undefined : Number(opts.timeout);
        if (timeout !== undefined && !(timeout > 0)) throw new LandError('usage', `--timeout: expected a positive number of seconds, got ${JSON.stringify(opts.timeout)}`);
        const final = await waitForJob(store, job.id, { timeoutSeconds: timeout, onWaiting: () => ctx.out.note(`waiting for ${job.id} to land (a drainer must run: land run)`) });
        if (ctx.out.json) ctx.out.emit({ outcome: outcome.kind, job: final });
        ctx.out.say(`${final.id}: ${final.state}${final.reason ? ` (${final.reason})` : ''}`);
        if (final.state !== 'landed') {
          throw new LandError('not_landed', `job ${final.id} ended ${final.state}${final.reason ? `: ${final.reason}` : ''}`);
        }
      }),
    );
}
