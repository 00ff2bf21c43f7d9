import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { LandError, isLandError } from '../../errors.js';
import { assertOutsideGitFolder } from '../../git/index.js';
import { renderReport } from '../../report/html.js';
import { historyOf } from '../historyOf.js';
import { parseSince } from '../../stats/since.js';
import { writeFileAtomic } from '../../store/index.js';
import { action } from '../action.js';

interface ReportOptions {
  html?: string;
  since?: string;
  json?: boolean;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

const WRITE_ERRORS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOENT: 'no such folder',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EEXIST: 'a part of the path is a file, not a folder',
  EISDIR: 'it is a folder',
};

/** Writes the page whole or not at all (temp file, rename); a path that cannot be written is a usage error. */
function writeReport(path: string, html: string): void {
  if (isDirectory(path)) throw new LandError('usage', `--html: ${path} is a folder; name the file to write`, { hint: 'land report --html report.html' });
  try {
    writeFileAtomic(path, html, { uncounted: true });
  } catch (error) {
    if (isLandError(error)) throw error; // a full disk: no_space, from the writer
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code ? `${WRITE_ERRORS[code] ?? 'write failed'}: ${code}` : (error as Error).message;
    throw new LandError('usage', `--html: cannot write ${path} (${reason})`, { hint: 'name a file in a folder you can write to', cause: error });
  }
}

export function registerReport(program: Command): void {
  program
    .command('report')
    .description("write an HTML report of the queue's history: window, time to land, train outcomes, gate durations, failed jobs")
    .option('--html <file>', 'the file to write (required): one self-contained page, inline SVG, nothing loaded from the network')
    .option('--since <time>', 'only what happened since then: a date (2026-11-01), a date and time (2026-11-01T12:00Z) or a span (90m, 24h, 7d, 2w)')
    .option('--json', 'print { file, empty, since, jobs, trains, charts: { <chart>: <marks> } } as JSON')
    .action(
      action<ReportOptions>(async (ctx, opts) => {
        if (!opts.html)
          throw new LandError('usage', 'land report: --html <file> is required (where to write the report)', { hint: 'land report --html report.html' });
        const now = Date.now();
        const since = opts.since === undefined ? null : parseSince(opts.since, now);
        const file = resolve(ctx.cwd, opts.html);
        await assertOutsideGitFolder(ctx.cwd, file, '--html');
        // A queue kept in a remote is fetched once by ctx.store() (openQueueStore refreshes it).
        const store = await ctx.store();
        const history = historyOf(store, { since, now });
        const title = await ctx.targetName().catch(() => undefined);
        const report = renderReport(history, { title });
        writeReport(file, report.html);
        const charts = Object.fromEntries(report.charts.map((chart) => [chart.name, chart.marks]));
        if (ctx.out.json) {
          const at = since === null ? null : new Date(since).toISOString();
          ctx.out.emit({ file, empty: report.empty, since: at, jobs: history.jobs.length, trains: history.trains.length, charts });
          return;
        }
        ctx.out.say(file);
        if (report.empty)
          ctx.out.say(`no history yet${since === null ? '' : ' in this period'}: the report says so (submit and run jobs, then write it again)`);
        else ctx.out.say(`  ${report.charts.map((chart) => `${chart.name} ${chart.marks}`).join(', ')} (marks per chart)`);
      }),
    );
}
