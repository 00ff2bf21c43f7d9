// `land executor run --dir <dir>`: the runner a drainer starts on an ssh executor (docs/executors.md).
// Internal (listed as such in `land --help`: no one runs it by hand). The request is the first line of standard input; the
// drainer keeps its end open while the run lasts, so standard input closing (the drainer abandoned
// the train, stopped, or the connection was lost) stops the gates at once, process group and all.
// The exit status is the protocol's (lib/landing/executors/outcome.ts), never land's usual codes.
import { Writable } from 'node:stream';
import type { Command } from 'commander';
import { REMOTE_EXIT } from '../../landing/executors/outcome.js';
import { MAX_REQUEST_BYTES, parseExecutorRequest } from '../../landing/executors/request.js';
import { runExecutorRequest } from '../../landing/executors/runner.js';

const SAFE_DIR = /^\/[A-Za-z0-9._/-]*$/;

export function registerExecutor(program: Command): void {
  const executor = program.command('executor').description("internal: the side of an ssh executor that a drainer's land starts over ssh (docs/executors.md)");
  executor
    .command('run')
    .description('run the gates a drainer sends on standard input (one JSON line) in this executor slot; internal')
    .requiredOption('--dir <dir>', "the executor's dir (the policy's executors[].dir)")
    .action(async (opts: { dir: string }) => {
      process.exitCode = await runFromStdin(opts.dir);
      // Done: the drainer's end of stdin stays open until ssh sees this process exit.
      process.stdin.destroy();
    });
}

async function runFromStdin(dir: string): Promise<number> {
  const complain = (line: string) => process.stderr.write(`${line}\n`);
  if (!SAFE_DIR.test(dir) || dir.split('/').includes('..')) {
    complain(`land executor run: --dir ${JSON.stringify(dir)} is not a plain absolute path`);
    return REMOTE_EXIT.infra;
  }
  const stop = new AbortController();
  const line = await firstLine(() => stop.abort());
  if (line === null) {
    complain('land executor run: no request on standard input');
    return REMOTE_EXIT.infra;
  }
  const parsed = parseExecutorRequest(line);
  if (!parsed.ok) {
    complain(`land executor run: ${parsed.reason}`);
    return REMOTE_EXIT.infra;
  }
  const out = stdoutOrStop(() => stop.abort());
  return runExecutorRequest(parsed.request, { dir: dir.replace(/(.)\/+$/, '$1'), out, complain, signal: stop.signal, env: process.env });
}

/** The first line of stdin (null: it closed first, or ran past the limit); `onClose` once it closes after that line. */
function firstLine(onClose: () => void): Promise<string | null> {
  return new Promise((resolve) => {
    let text = '';
    let done = false;
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => {
      if (done) return;
      text += chunk;
      const end = text.indexOf('\n');
      if (end !== -1) {
        done = true;
        resolve(text.slice(0, end));
      } else if (text.length > MAX_REQUEST_BYTES) {
        done = true;
        resolve(null);
      }
    });
    const closed = () => {
      if (done) return onClose();
      done = true;
      resolve(null);
    };
    process.stdin.once('end', closed);
    process.stdin.once('error', closed);
  });
}

/**
 * Standard output, with land's usual "reader gone: exit" replaced: a write that fails (the drainer
 * gone) stops the gates instead of ending this process before it has killed them.
 */
function stdoutOrStop(onGone: () => void): Writable {
  process.stdout.removeAllListeners('error');
  process.stdout.on('error', onGone);
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      // Waits for the pipe (the log is not held in memory when ssh reads slowly); an error is the 'error' event's.
      process.stdout.write(chunk, () => callback());
    },
  });
}
