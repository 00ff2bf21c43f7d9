import type { Command } from 'commander';
import { LandError } from '../../errors.js';
import { assertJobName, findLedgerLine, ledgerDirOrThrow, readLedger, type LedgerLine } from '../../ledger/index.js';
import { assertDateExists } from '../../stats/since.js';
import { action } from '../action.js';
import type { Output } from '../output.js';
import { table } from '../../text/table.js';

function countsText(line: LedgerLine): string {
  const c = line.counts;
  const parts: string[] = [];
  if (c.compiled !== null) parts.push(`compiled ${c.compiled}/${c.candidates}`);
  if (c.received !== null) parts.push(`received ${c.received}`);
  if (c.completionTokens !== null) parts.push(`tokens ${c.completionTokens}`);
  if (c.scored !== null) parts.push(`scored ${c.scored}`);
  if (c.best !== null) parts.push(`best ${c.best}`);
  return parts.join(', ');
}

function statusText(line: LedgerLine): string {
  if (line.signal !== null) return line.signal;
  return line.interruptedBy === null ? String(line.status) : `${line.status} (${line.interruptedBy})`;
}

function showLines(out: Output, lines: readonly LedgerLine[]): void {
  const rows = lines.map((l) => [l.start, `${l.wallSeconds}s`, l.cpuHours.toFixed(4), statusText(l), l.host, countsText(l)]);
  out.say(table(['start', 'wall', 'cpu-h', 'status', 'host', 'counts'], rows));
}

export function registerLedger(program: Command): void {
  const ledger = program.command('ledger').description("a batch job's ledger lines (what each batch spent and produced)");
  ledger
    .command('show')
    .description('the ledger lines of a job, oldest first')
    .requiredOption('--job <name>', 'the job name')
    .option('--json', 'one ledger line (JSON) per line of output')
    .action(
      action<{ job: string; json?: boolean }>(async (ctx, opts) => {
        const job = assertJobName(opts.job);
        const read = readLedger(await ledgerDirOrThrow(ctx.cwd, process.env, ctx.options.target), job);
        if (read.tornTail) ctx.out.note(`land: ${read.path}: the last line is incomplete (a writer stopped mid-line); skipped`);
        const other = read.badLines.length - (read.tornTail ? 1 : 0);
        if (other > 0) ctx.out.note(`land: ${read.path}: skipped ${other} line(s) that are not ledger lines of version 1`);
        if (ctx.out.json) for (const line of read.lines) ctx.out.emit(line);
        else if (read.lines.length === 0) ctx.out.say(`no ledger lines for ${job} in ${read.path}`);
        else showLines(ctx.out, read.lines);
      }),
    );
  ledger
    .command('verify')
    .description('exit 0 when the job left a ledger line for a batch started at or after --since')
    .requiredOption('--job <name>', 'the job name')
    .requiredOption('--since <time>', 'an ISO time, for example 2025-01-31T08:00:00Z')
    .option('--json', 'print { job, since, line } when a line is found')
    .action(
      action<{ job: string; since: string; json?: boolean }>(async (ctx, opts) => {
        const job = assertJobName(opts.job);
        if (Number.isNaN(Date.parse(opts.since))) throw new LandError('usage', `--since: not a time: ${JSON.stringify(opts.since)}`);
        assertDateExists(opts.since);
        const dir = await ledgerDirOrThrow(ctx.cwd, process.env, ctx.options.target);
        const line = findLedgerLine(dir, job, opts.since);
        if (line === null) throw new LandError('not_found', `no ledger line for ${job} since ${opts.since} in ${dir}`);
        if (ctx.out.json) ctx.out.emit({ job, since: opts.since, line });
        ctx.out.say(`${job}: ledger line for the batch started ${line.start} (status ${statusText(line)})`);
      }),
    );
}
