import type { Command } from 'commander';
import { configGet } from '../../git/index.js';
import { cancelJob, retryJob } from '../../queue/index.js';
import { action } from '../action.js';

async function who(cwd: string): Promise<string> {
  return (await configGet(cwd, 'user.email')) ?? process.env.USER ?? 'unknown';
}

export function registerCancel(program: Command): void {
  program
    .command('cancel')
    .argument('<id>', 'job id')
    .description('cancel a job: a queued job at once, a running one at the next train boundary')
    .option('--json', 'print the outcome as JSON')
    .action(
      action<{ json?: boolean }>(async (ctx, _opts, args) => {
        const store = await ctx.store();
        const outcome = await cancelJob(store, args[0] ?? '', await who(ctx.cwd));
        if (ctx.out.json) ctx.out.emit({ outcome: outcome.kind, job: outcome.job });
        else if (outcome.kind === 'canceled') ctx.out.say(`canceled ${outcome.job.id}`);
        else ctx.out.say(`${outcome.job.id} is riding a train; it will be canceled at the next train boundary`);
      }),
    );
  program
    .command('retry')
    .argument('<id>', 'job id')
    .description('put a failed job back in the queue')
    .option('--json', 'print the job as JSON')
    .action(
      action<{ json?: boolean }>(async (ctx, _opts, args) => {
        const store = await ctx.store();
        const job = await retryJob(store, args[0] ?? '', await who(ctx.cwd));
        if (ctx.out.json) ctx.out.emit({ outcome: 'queued', job });
        else ctx.out.say(`requeued ${job.id}`);
      }),
    );
}
