#!/usr/bin/env node
// Entry point: parse argv, run the command, and turn errors into exit codes. This is the only
// place that maps an error to an exit status (see docs/exit-codes.md); a command that ends without
// an error returns its own status from EXIT_CODES (lib/errors.ts).
import { CommanderError, type Command } from 'commander';
import { buildProgram } from '../lib/cli/program.js';
import { EXIT_CODES, LandError, exitCodeFor } from '../lib/errors.js';
import { GitError } from '../lib/git/index.js';
import { printable } from '../lib/cli/safeText.js';

// A message may quote what a user typed or what a corrupt file holds: escaped, one line each.
function report(error: unknown, debug: boolean): number {
  if (error instanceof LandError) {
    process.stderr.write(`land: ${printable(error.message)}\n`);
    for (const line of error.details) process.stderr.write(`  ${printable(line)}\n`);
    if (error.hint) process.stderr.write(`hint: ${printable(error.hint)}\n`);
    return exitCodeFor(error);
  }
  if (error instanceof GitError) {
    process.stderr.write(`land: ${printable(error.message)}\n`);
    if (debug) process.stderr.write(`${error.stderr}\n`);
    return EXIT_CODES.git;
  }
  process.stderr.write(`land: internal error: ${printable((error as Error)?.message ?? String(error))}\n`);
  if (debug) process.stderr.write(`${(error as Error)?.stack ?? ''}\n`);
  else process.stderr.write('hint: run again with --debug for the stack trace\n');
  return EXIT_CODES.internal;
}

/** exitOverride() is not inherited by subcommands registered before it is set: apply it to all. */
function overrideExits(command: Command): Command {
  command.exitOverride();
  for (const sub of command.commands) overrideExits(sub);
  return command;
}

async function main(argv: string[]): Promise<void> {
  const program = overrideExits(buildProgram());
  const debug = argv.includes('--debug');
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every other parse problem is a usage error (commander printed it).
      process.exitCode = error.exitCode === 0 ? 0 : EXIT_CODES.usage;
      return;
    }
    process.exitCode = report(error, debug);
  }
}

// A reader that closes the pipe early (`land status | head -1`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

await main(process.argv);
