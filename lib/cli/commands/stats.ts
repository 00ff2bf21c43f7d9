import type { Command } from 'commander';
import { LandError } from '../../errors.js';
import { computeStats } from '../../stats/figures.js';
import { historyOf } from '../historyOf.js';
import { toOpenMetrics } from '../../stats/openMetrics.js';
import { parseSince } from '../../stats/since.js';
import { statsText } from '../../stats/statsText.js';
import { action } from '../action.js';

interface StatsOptions {
  since?: string;
  json?: boolean;
  openmetrics?: boolean;
}

export function registerStats(program: Command): void {
  program
    .command('stats')
    .description(
      'figures from the recorded history: jobs landed and failed, gate runs per landed job, trains by outcome, time to land, flaky gates, the culprit rate, the window',
    )
    .option(
      '--since <time>',
      'only the period from <time>: a date (2026-11-01), a date and time (2026-11-01T12:00Z) or a span back from now (90m, 24h, 7d, 2w)',
    )
    .option('--json', 'print the figures as one JSON object (docs/stats.md lists every field)')
    .option('--openmetrics', 'print the figures in the OpenMetrics text format (land_* families, ending with # EOF), for a metrics collector')
    .action(
      action<StatsOptions>(async (ctx, opts) => {
        if (opts.openmetrics && opts.json) throw new LandError('usage', 'use either --json or --openmetrics, not both');
        const now = Date.now();
        const since = opts.since === undefined ? null : parseSince(opts.since, now);
        // The queue's store: a queue kept in a remote is fetched once when it is opened (docs/remote.md).
        const store = await ctx.store();
        const stats = computeStats(historyOf(store, { since, now }));
        if (opts.openmetrics) process.stdout.write(toOpenMetrics(stats));
        else if (ctx.out.json) ctx.out.emit(stats);
        else ctx.out.say(statsText(stats));
      }),
    );
}
