import type { Command } from 'commander';
import { followLog, jobLog, readWholeLog, stillRunning } from '../../story/trainLog.js';
import { action } from '../action.js';
import { JOB_ARG_HELP, jobIdOf } from '../jobArg.js';

interface LogOptions {
  train?: string;
  follow?: boolean;
  json?: boolean;
}

export function registerLog(program: Command): void {
  program
    .command('log')
    .argument('[id]', JOB_ARG_HELP)
    .description("print the gate log of a job's latest train (or of --train); -f follows it while the gate runs")
    .option('--train <train>', 'a train the job rode (see land why <id>); exit 4 for a train it did not ride')
    .option('-f, --follow', 'keep printing what is appended until the train is over for the job (or its drainer is gone)')
    .option('--json', 'print { job, train, path, text }; with -f, one such object per appended piece')
    .action(
      action<LogOptions>(async (ctx, opts, args) => {
        const store = await ctx.store();
        const log = jobLog(store, await jobIdOf(ctx, args[0]), opts.train);
        const head = { job: log.job.id, train: log.train, path: log.path };
        if (!opts.follow) {
          const text = readWholeLog(store, log.train);
          if (ctx.out.json) ctx.out.emit({ ...head, text });
          else process.stdout.write(text);
          return;
        }
        // Ctrl-C ends it the way it ends tail -f: nothing to clean up.
        if (stillRunning(store, log.job.id, log.train))
          ctx.out.note(`land: following ${log.path} (train ${log.train}) until the train is over for ${log.job.id}`);
        else ctx.out.note(`land: train ${log.train} is over for ${log.job.id}; nothing to follow`);
        await followLog(store, log, (text) => (ctx.out.json ? ctx.out.emit({ ...head, text }) : process.stdout.write(text)));
      }),
    );
}
