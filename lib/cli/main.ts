// The CLI past its entry (bin/land.ts loads this module for everything but `land --version`):
// parse argv, run the command, and turn errors into exit codes. This is the only place that maps
// an error to an exit status (see docs/exit-codes.md); a command that ends without an error
// returns its own status from EXIT_CODES (lib/errors.ts).
import { CommanderError, type Command } from 'commander';
import { EXIT_CODES, LandError, exitCodeFor } from '../errors.js';
import { GitError } from '../git/index.js';
import { buildProgram } from './program.js';
import { printable } from '../text/safeText.js';

const NO_SPACE_TEXT = /No space left on device|Disk quota exceeded/i;
const NO_SPACE_HINT = 'free space on that file system, then run the command again';

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
    if (!NO_SPACE_TEXT.test(error.stderr)) return EXIT_CODES.git;
    process.stderr.write(`hint: ${NO_SPACE_HINT}\n`);
    return EXIT_CODES.no_space;
  }
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    // A write outside the state folder's own writers (a log, a worktree): still no bug.
    const path = (error as NodeJS.ErrnoException).path;
    const reason = code === 'EDQUOT' ? 'disk quota exceeded' : 'no space left on device';
    process.stderr.write(`land: could not write${path ? ` ${path}` : ''}: ${reason} (${code})\n`);
    process.stderr.write(`hint: ${NO_SPACE_HINT}\n`);
    return EXIT_CODES.no_space;
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

/** Runs `land` with `argv` (process.argv: node, script, arguments); sets process.exitCode. */
export async function main(argv: string[]): Promise<void> {
  // Only the command argv names is loaded (all of them for help, completion or an unknown name).
  const program = overrideExits(await buildProgram(argv.slice(2)));
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
