import type { Command } from 'commander';
import { gcText, runGc } from '../../gc/run.js';
import { parseSpan } from '../../gc/plan.js';
import { action } from '../action.js';

export function registerGc(program: Command): void {
  program
    .command('gc')
    .description(
      'prune finished jobs (landed, failed, canceled) older than a span: their records and the logs of the trains only they rode (and of older trains of this drainer whose jobs a gc in another clone pruned); in a queue kept in a remote, their refs too, in one push. What stats, report and tune count of each job is kept (pruned.jsonl; refs/land/pruned). Never a queued or running job; metrics rows and the journal stay',
    )
    .option('--older-than <span>', 'prune jobs that finished longer ago than this: a whole number and a unit, 90m, 24h, 30d, 2w', '30d')
    .option('--json', 'print { olderThan, cutoff, jobs, trains, remoteRefs } as JSON (the pruned job ids and train ids)')
    .action(
      action<{ olderThan: string; json?: boolean }>(async (ctx, opts) => {
        const spanMs = parseSpan(opts.olderThan);
        const store = await ctx.store();
        const outcome = await runGc(store, { olderThan: opts.olderThan, spanMs, now: Date.now() });
        if (ctx.out.json) ctx.out.emit(outcome);
        else ctx.out.say(gcText(outcome, (await store.describe()).remote));
      }),
    );
}
