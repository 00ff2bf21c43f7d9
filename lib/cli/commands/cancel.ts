import type { Command } from 'commander';
import { configGet } from '../../git/index.js';
import { LandError } from '../../errors.js';
import { cancelJob, retryJobs, type RetryRequest } from '../../queue/index.js';
import { action } from '../action.js';
import type { CommandContext } from '../context.js';
import { JOB_ARG_HELP, jobIdOf } from '../jobArg.js';
import { showName } from '../output.js';
import { requeuedLine } from '../requeueText.js';

async function who(cwd: string): Promise<string> {
  return (await configGet(cwd, 'user.email')) ?? process.env.USER ?? 'unknown';
}

/** The jobs `land retry` names: each id or branch looked up; none, the checked-out branch's latest job. */
async function retryIds(ctx: CommandContext, args: readonly string[]): Promise<string[]> {
  if (!args.length) return [await jobIdOf(ctx, undefined)];
  const ids: string[] = [];
  for (const arg of args) ids.push(await jobIdOf(ctx, arg));
  return ids;
}

export function registerCancel(program: Command): void {
  program
    .command('cancel')
    .argument('[job]', JOB_ARG_HELP)
    .description('cancel a job: a queued job at once, a running one at the next train boundary')
    .option('--json', 'print the outcome as JSON')
    .action(
      action<{ json?: boolean }>(async (ctx, _opts, args) => {
        const store = await ctx.store();
        const outcome = await cancelJob(store, await jobIdOf(ctx, args[0]), await who(ctx.cwd));
        if (ctx.out.json) ctx.out.emit({ outcome: outcome.kind, job: outcome.job });
        else if (outcome.kind === 'canceled') ctx.out.say(`canceled ${outcome.job.id}`);
        else ctx.out.say(`${outcome.job.id} is riding a train; it will be canceled at the next train boundary`);
      }),
    );
  program
    .command('retry')
    .argument('[jobs...]', 'job ids or branch names (each its latest job); none: the checked-out branch (see land status --all)')
    .description('put failed or canceled jobs back in the queue as the same jobs; the next train gates them again (all or nothing)')
    .option('--all-failed', 'every failed job of this target; one superseded by a newer job of its branch is skipped')
    .option('--json', 'print one { outcome, job } line per job: outcome "requeued", or "skipped" with "why"')
    .action(
      action<{ json?: boolean; allFailed?: boolean }>(async (ctx, opts, args) => {
        if (opts.allFailed && args.length) throw new LandError('usage', 'name jobs or use --all-failed, not both');
        const target = await ctx.targetName();
        const store = await ctx.store();
        const request: RetryRequest = opts.allFailed ? { kind: 'all_failed' } : { kind: 'ids', ids: await retryIds(ctx, args) };
        const outcome = await retryJobs(store, request, target, await who(ctx.cwd));
        for (const { job, previous } of outcome.requeued) {
          if (ctx.out.json) ctx.out.emit({ outcome: 'requeued', job, previous });
          ctx.out.say(requeuedLine(job, previous));
        }
        for (const { job, why } of outcome.skipped) {
          if (ctx.out.json) ctx.out.emit({ outcome: 'skipped', job, why });
          ctx.out.say(`skipped ${job.id} (${showName(job.branch)}): ${why}`);
        }
        if (opts.allFailed && !outcome.requeued.length && !outcome.skipped.length) {
          const line = `no failed jobs on ${target}; nothing to retry`;
          if (ctx.out.json) ctx.out.note(line);
          else ctx.out.say(line);
        }
      }),
    );
}
