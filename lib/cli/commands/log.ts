import type { Command } from 'commander';
import type { QueueStore } from '../../store/index.js';
import { followLog, type JobLog, jobLog, jobOfTrain, readWholeLog, stillRunning } from '../../story/trainLog.js';
import { action } from '../action.js';
import type { CommandContext } from '../context.js';
import { JOB_ARG_HELP, jobIdOf } from '../jobArg.js';

interface LogOptions {
  train?: string;
  follow?: boolean;
  json?: boolean;
}

interface JudgingLog {
  train: string;
  path: string;
  text: string;
}

/**
 * The log of the train that judged this train's tree, when its verdict came from the verdict
 * cache (its own log then holds land's header lines only); null when its gates ran, or when that
 * log is gone (said on stderr).
 */
function judgingLog(ctx: CommandContext, store: QueueStore, log: JobLog): JudgingLog | null {
  const train = log.judgedBy;
  if (!train) return null;
  if (!store.hasLog(train)) {
    ctx.out.note(
      `land: the verdict of train ${log.train} came from the verdict cache; train ${train} judged the tree, and its log is gone (${store.logPath(train)})`,
    );
    return null;
  }
  return { train, path: store.logPath(train), text: readWholeLog(store, train) };
}

/** After the train's own log: the judging train's, under one `==` line saying whose it is. */
function writeJudging(ctx: CommandContext, store: QueueStore, log: JobLog, ownText: string): void {
  const judging = judgingLog(ctx, store, log);
  if (!judging) return;
  if (ctx.out.json) {
    ctx.out.emit({ job: log.job.id, train: judging.train, path: judging.path, text: judging.text, judged: log.train });
    return;
  }
  const gap = ownText === '' || ownText.endsWith('\n') ? '' : '\n';
  process.stdout.write(
    `${gap}== the verdict of train ${log.train} came from the verdict cache: train ${judging.train} judged the same tree; its log (${judging.path}):\n`,
  );
  process.stdout.write(judging.text);
}

export function registerLog(program: Command): void {
  program
    .command('log')
    .argument('[job]', JOB_ARG_HELP)
    .description(
      "print the gate log of a job's latest train (or of --train), and for a verdict from the verdict cache the log of the train that judged the tree (a train where no gate ran, a conflict: one line saying so, exit 0); -f follows it while the gate runs",
    )
    .option('--train <train>', 'a train the job rode (see land why <id>); exit 4 for a train it did not ride; with no id, the job that rode the train')
    .option('-f, --follow', 'keep printing what is appended until the train is over for the job (or its drainer is gone)')
    .option(
      '--json',
      "print { job, train, path, text }, then for a cached verdict the judging train's { job, train, path, text, judged }; a train where no gate ran: { job, train, path: null, text: '', noGate }; with -f, one object per appended piece",
    )
    .action(
      action<LogOptions>(async (ctx, opts, args) => {
        const store = await ctx.store();
        // --train alone names the train: its job is looked up from it, not from the checked-out branch.
        const id = args[0] === undefined && opts.train !== undefined ? jobOfTrain(store, opts.train) : await jobIdOf(ctx, args[0]);
        const log = jobLog(store, id, opts.train);
        if (log.shows !== 'own') {
          printInstead(ctx, store, log);
          return;
        }
        const head = { job: log.job.id, train: log.train, path: log.path };
        if (!opts.follow) {
          const text = readWholeLog(store, log.train);
          if (ctx.out.json) ctx.out.emit({ ...head, text });
          else process.stdout.write(text);
          writeJudging(ctx, store, log, text);
          return;
        }
        // Ctrl-C ends it the way it ends tail -f: nothing to clean up.
        if (stillRunning(store, log.job.id, log.train))
          ctx.out.note(`land: following ${log.path} (train ${log.train}) until the train is over for ${log.job.id}`);
        else ctx.out.note(`land: train ${log.train} is over for ${log.job.id}; nothing to follow`);
        let last = '';
        await followLog(store, log, (text) => {
          last = text;
          if (ctx.out.json) ctx.out.emit({ ...head, text });
          else process.stdout.write(text);
        });
        writeJudging(ctx, store, { ...log, judgedBy: log.judgedBy ?? judgedAfter(store, log) }, last);
      }),
    );
}

/**
 * A train whose own log is not printed (-f has nothing to follow: the train is over): the line
 * saying no gate ran, or the judging train's log alone when the cached train's own log is not here.
 */
function printInstead(ctx: CommandContext, store: QueueStore, log: JobLog): void {
  if (log.shows === 'judging') writeJudging(ctx, store, log, '');
  else if (ctx.out.json) ctx.out.emit({ job: log.job.id, train: log.train, path: null, text: '', noGate: log.noGate });
  else process.stdout.write(`${log.noGate}\n`);
}

/** A train followed while it ran is judged by then: whether its verdict came from the cache. */
function judgedAfter(store: QueueStore, log: JobLog): string | null {
  return jobLog(store, log.job.id, log.train).judgedBy;
}
