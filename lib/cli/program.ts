import { Command } from 'commander';
import { applyHelpExamples } from './helpExamples.js';
import { registerBatch } from './commands/batch.js';
import { registerCancel } from './commands/cancel.js';
import { registerCompletion } from './commands/completion.js';
import { registerConfig } from './commands/config.js';
import { registerHooks } from './commands/hooks.js';
import { registerInit } from './commands/init.js';
import { registerLedger } from './commands/ledger.js';
import { registerProve } from './commands/prove.js';
import { registerRun } from './commands/run.js';
import { registerShow } from './commands/show.js';
import { registerStatus } from './commands/status.js';
import { registerSubmit } from './commands/submit.js';
import { registerWindow } from './commands/window.js';
import { registerWhy } from './commands/why.js';
import { registerLog } from './commands/log.js';
import { registerRepro } from './commands/repro.js';
import { registerReconcile } from './commands/reconcile.js';

export const VERSION = '0.1.0';

/** The end of `land --help`, before the docs pointer (the full table: docs/exit-codes.md). */
const EXIT_CODE_SUMMARY = `Exit codes: 0 ok, 1 internal error, 2 usage, 3 policy (.ctm.json) or missing target,
4 not found, 5 refused by the job's state, 6 busy (another drainer), 7 git failed,
8 corrupt state file, 9 job did not land (submit --wait),
10 target red: the target itself fails its gates, 12 disagreement (land reconcile --check), 130 interrupted.
land batch has its own: 2 provider refused, 3 no lane, 4 no ledger dir, 5 no ledger line.`;

/** The program, every command registered, each help ending with examples and its docs page. */
export function buildProgram(): Command {
  const program = registerCommands();
  applyHelpExamples(program, EXIT_CODE_SUMMARY);
  return program;
}

function registerCommands(): Command {
  const program = new Command();
  program
    .name('land')
    .description('A landing queue for git: merge trains, one gate run per train, one compare-and-swap per landing.')
    .version(VERSION)
    .option('-C, --cwd <dir>', 'run as if started in <dir>')
    .option('--target <branch>', 'the target branch (default: LAND_TARGET, else git config land.target, else main)')
    .option('--debug', 'print stack traces of internal errors')
    .showHelpAfterError('(run land --help for usage)')
    .configureHelp({ showGlobalOptions: true });
  registerInit(program);
  registerConfig(program);
  registerSubmit(program);
  registerStatus(program);
  registerShow(program);
  registerCancel(program);
  registerRun(program);
  registerWindow(program);
  registerProve(program);
  registerHooks(program);
  registerBatch(program);
  registerLedger(program);
  registerWhy(program);
  registerLog(program);
  registerRepro(program);
  registerReconcile(program);
  registerCompletion(program);
  return program;
}
