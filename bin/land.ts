#!/usr/bin/env node
// Entry point, kept tiny: `land --version` is answered here without loading anything else; every
// other command loads lib/cli/main.ts, which parses argv, loads only the command it names and maps
// errors to exit codes (see docs/development.md, start-up).
import { VERSION } from '../lib/version.js';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // A reader that closed the pipe already (`land --version | true`) is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  process.stdout.write(`${VERSION}\n`);
} else {
  const { main } = await import('../lib/cli/main.js');
  await main(process.argv);
}
