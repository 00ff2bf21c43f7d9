import type { Command } from 'commander';
import { EXIT_CODES, LandError } from '../../errors.js';
import { drain, type DrainSummary } from '../../landing/drain.js';
import type { DrainEvent } from '../../landing/events.js';
import type { WatchOptions } from '../../landing/watch.js';
import { resolveSandboxHost } from '../../landing/gates/sandboxHost.js';
import { action } from '../action.js';
import { startReporter } from '../progress/index.js';

interface RunOptions {
  once?: boolean;
  wait?: boolean; // commander's --no-wait sets wait=false
  json?: boolean;
  watch?: boolean;
  idleExit?: string;
  failOnFailed?: boolean;
}

/**
 * The exit status of a drain: a stop's own (it says more), else 15 with --fail-on-failed when a
 * job failed in this run, else 0.
 */
export function runExitCode(summary: Pick<DrainSummary, 'stopped' | 'failed'>, failOnFailed: boolean): number {
  if (summary.stopped) {
    if (summary.stopped.why === 'interrupted') return EXIT_CODES.interrupted;
    if (summary.stopped.why === 'lock_lost') return EXIT_CODES.busy;
    if (summary.stopped.why === 'target_red') return EXIT_CODES.target_red;
    return EXIT_CODES.state;
  }
  return failOnFailed && summary.failed.length > 0 ? EXIT_CODES.jobs_failed : EXIT_CODES.ok;
}

/** `--watch [--idle-exit <seconds>]` as drain options; LAND_WATCH_POLL=1 forces polling. */
function watchOptions(opts: RunOptions, env: NodeJS.ProcessEnv): WatchOptions | null {
  if (opts.watch && opts.once)
    throw new LandError('usage', '--watch and --once do not go together', { hint: '--once runs one batch and stops; --watch keeps draining' });
  if (opts.idleExit !== undefined && !opts.watch) throw new LandError('usage', '--idle-exit only goes with --watch');
  if (!opts.watch) return null;
  const idleExit = opts.idleExit === undefined ? null : Number(opts.idleExit);
  if (idleExit !== null && !(Number.isFinite(idleExit) && idleExit > 0)) {
    throw new LandError('usage', `--idle-exit: expected a positive number of seconds, got ${JSON.stringify(opts.idleExit)}`);
  }
  const poll = env.LAND_WATCH_POLL;
  return { idleExitSeconds: idleExit, poll: poll !== undefined && poll !== '' && poll !== '0' };
}

function describeSummary(summary: DrainSummary): string {
  const parts = [`${summary.trains} train(s)`, `${summary.gateRuns} gate run(s)`, `${summary.landed.length} landed`, `${summary.failed.length} failed`];
  if (summary.contained.length) parts.push(`${summary.contained.length} already in the target`);
  if (summary.canceled.length) parts.push(`${summary.canceled.length} canceled`);
  if (summary.queued.length) parts.push(`${summary.queued.length} still queued`);
  return `done: ${parts.join(', ')}; window ${summary.window}${summary.stopped ? `; stopped: ${summary.stopped.message}` : ''}`;
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('drain the queue: build trains, gate each once, land with one CAS, bisect failures')
    .option('--once', 'run one admitted batch (with its bisection) and stop')
    .option('--no-wait', 'exit at once (exit 6) when another drainer holds the queue')
    .option('--watch', 'keep running: when the queue is empty, wait for new submissions (stop with SIGTERM, SIGINT or SIGHUP)')
    .option('--idle-exit <seconds>', 'with --watch, exit 0 once the queue has been empty this long')
    .option('--fail-on-failed', 'exit 15 when a job failed in this run (for CI; a stop keeps its own status)')
    .option('--json', 'print one JSON event per line, then a summary object')
    .action(
      action<RunOptions>(async (ctx, opts) => {
        const watch = watchOptions(opts, process.env);
        const queue = await ctx.queue();
        const { store } = queue;
        const sandbox = await resolveSandboxHost(ctx.cwd, store, { probe: true });
        const abort = new AbortController();
        let signals = 0;
        const onSignal = (name: NodeJS.Signals) => {
          signals += 1;
          if (signals === 1) {
            emit({ type: 'stopping', why: `${name}: finishing the current train (send it again to stop the gate now)` });
          } else {
            emit({ type: 'stopping', why: `${name}: stopping the running gate; its members go back to the queue` });
            abort.abort();
          }
        };
        // JSON events, a live block on a terminal, or plain lines: see lib/cli/progress.
        const reporter = await startReporter({ out: ctx.out, store, policy: queue.policy, stream: process.stderr, env: process.env });
        const emit = (event: DrainEvent) => reporter.event(event);
        // SIGHUP too: a drainer whose terminal or ssh session closes stops as for SIGTERM (state written, lease released).
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
        process.on('SIGHUP', onSignal);
        try {
          const summary = await drain(
            ctx.cwd,
            store,
            {
              once: Boolean(opts.once),
              wait: opts.wait !== false,
              stopAfterTrain: () => signals > 0,
              abort: abort.signal,
              target: await queue.target(),
              policy: await queue.policy(),
              watch,
              sandbox,
            },
            emit,
          );
          reporter.close();
          if (ctx.out.json) ctx.out.emit(summary);
          else ctx.out.say(describeSummary(summary));
          return runExitCode(summary, Boolean(opts.failOnFailed));
        } finally {
          reporter.close();
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          process.off('SIGHUP', onSignal);
        }
      }),
    );
}
