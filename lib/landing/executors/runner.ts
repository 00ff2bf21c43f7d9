// The runner on an executor (`land executor run --dir <dir>`): moves the slot's checkout to the
// shipped commit, runs the request's gates there with the same code as on the drainer (runGates:
// this host's sandbox, the environment allow-list, timeouts, process groups), writes the gate log
// to `out` (the drainer streams it into the train's log) and returns the exit status the drainer
// reads the verdict from (outcome.ts). Anything that keeps it from running the gates is INFRA (75)
// with one line on stderr: nothing was tested.
import { existsSync, mkdirSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { isolationOf, checkSandboxPaths } from '../gates/sandbox.js';
import { resolveSandboxHost } from '../gates/sandboxHost.js';
import { LogSink } from '../gates/logSink.js';
import { runGates } from '../gates/gateRunner.js';
import { REMOTE_EXIT, runnerExit } from './outcome.js';
import type { ExecutorRequest } from './request.js';
import { checkoutSlot } from './slotCheckout.js';

export interface RunnerIo {
  /** The executor's dir (the policy's, checked by the caller). */
  dir: string;
  out: Writable;
  /** One line of why the gates could not run. */
  complain: (line: string) => void;
  /** Aborted when the drainer goes away (the runner's stdin closed). */
  signal: AbortSignal;
  /** This host's environment, which the allow-list reads. */
  env: NodeJS.ProcessEnv;
}

export async function runExecutorRequest(request: ExecutorRequest, io: RunnerIo): Promise<number> {
  const cache = `${io.dir}/cache.git`;
  if (!existsSync(cache)) return refuse(io, `no cache repository at ${cache} (the drainer makes it before it ships a train)`);
  const slotDir = `${io.dir}/slots/${request.slot}`;
  let ready: Awaited<ReturnType<typeof prepare>>;
  try {
    ready = await prepare(cache, slotDir, request);
  } catch (error) {
    return refuse(io, (error as Error).message.split('\n')[0] ?? 'cannot prepare the slot');
  }
  if (ready.isolation.decision.kind === 'refused') return refuse(io, ready.isolation.decision.message);
  const log = new LogSink('', { maxBytes: request.logMaxBytes, to: io.out });
  try {
    log.line(`== on the executor, slot ${request.slot} at ${request.commit}`);
    const run = await runGates({
      gates: request.gates,
      worktree: slotDir,
      ownsWorktree: true,
      log,
      signal: io.signal,
      isolation: ready.isolation,
      train: request.train,
      from: { ...io.env, ...request.passEnv },
    });
    return runnerExit(run);
  } finally {
    await log.close();
  }
}

/** The slot's checkout at the commit, and this host's sandbox for the request's settings. */
async function prepare(cache: string, slotDir: string, request: ExecutorRequest) {
  await checkoutSlot(cache, slotDir, request.commit);
  // The sandbox hides the state folder of the repository the gates' git folder belongs to (here
  // the cache repository's, which holds nothing): it must exist to be hidden.
  mkdirSync(`${cache}/land`, { recursive: true });
  // The request names the mode the drainer resolved: the host's default is never read.
  const host = await resolveSandboxHost(slotDir, { defaultSandboxMode: () => 'required' }, { probe: true });
  const isolation = isolationOf(host, request.sandbox);
  if (isolation.decision.kind === 'sandbox') checkSandboxPaths(isolation, request.gates);
  return { isolation };
}

function refuse(io: RunnerIo, why: string): number {
  io.complain(`land executor run: ${why}`);
  return REMOTE_EXIT.infra;
}
