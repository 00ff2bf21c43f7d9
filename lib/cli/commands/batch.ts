import type { Command } from 'commander';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { runBatch } from '../../ledger/index.js';
import { action } from '../action.js';

interface BatchOptions {
  job?: string;
  measureDir?: string;
}

// `land batch`: the ledger-enforcing batch wrapper. Its exit codes are its own (2 provider refused,
// 3 no lane, 4 no ledger dir, 5 no ledger line, else the command's status), so it returns them
// instead of throwing LandErrors, whose codes map to the table of the other commands.
export function registerBatch(program: Command): void {
  program
    .command('batch')
    .usage('--job <name> --measure-dir <dir> -- <command...>')
    .description('run a costly batch so that it leaves a ledger line or fails (see docs/batch.md)')
    .requiredOption('--job <name>', 'the job name: its ledger file is <ledger dir>/<name>.jsonl')
    .requiredOption('--measure-dir <dir>', 'where batch.log and samples.jsonl are written')
    .argument('<command...>', 'the batch, after --')
    .action((words: string[], ...rest: unknown[]) =>
      action<BatchOptions>(
        (ctx, opts) =>
          runBatch({
            cwd: ctx.cwd,
            job: opts.job ?? '',
            measureDir: opts.measureDir ?? '',
            command: words,
            target: ctx.options.target,
            env: process.env,
            self: { node: process.execPath, land: realpathSync(resolve(process.argv[1] ?? '')) },
            note: (line) => ctx.out.note(line),
          }),
        // A batch may run anywhere; outside a repository the policy's defaults apply.
        { outsideRepository: true },
      )(words, ...rest),
    );
}
