// The executors row (issue 23): the parallel row's queue (N one-line branches, k = round(p x N)
// culprits at seeded positions, gates that sleep) drained once on the drainer's one local gate slot
// and once on `slots` ssh executor slots: two sshd processes on 127.0.0.1 (bench/sshd.ts) as two
// hosts, half the slots each, their `dir` in the bench's temporary folder, the executors' land
// this build; and, for comparison, on as many slots of the drainer's own (what the plan gets from
// the slots without ssh's cost). Where sshd is not installed the row says so (`skipped`) and has no figures.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BenchError } from './git.js';
import { LAND_BIN } from './land.js';
import { drainCopy, prepareSleepQueue, type SleepDrain, type SleepQueueShape } from './parallel.js';
import { SSHD, sshdInstalled, startSshd, type TestSshd } from './sshd.js';
import { culpritPositions } from './sweep.js';

/** One drain; `slots`: `local 1` (the drainer's one slot), `ssh <slots>` (the executors'), `local <slots>` (as many on the drainer). */
export type ExecutorsRun = SleepDrain & { slots: string };

export interface ExecutorsRow extends SleepQueueShape {
  /** Gate slots of the second drain, on `hosts` sshd hosts. */
  slots: number;
  hosts: number;
  wallSecondsLocal1: number | null;
  wallSecondsK: number | null;
  /** wallSecondsK / wallSecondsLocal1 (the goal: at most 0.45). */
  ratio: number | null;
  /** For comparison: the same slots all on the drainer (no ssh): what the plan gets from them without ssh's cost. */
  wallSecondsLocalK: number | null;
  /** Gate processes the executors' drain started (abandoned speculative ones included), and those that ran to their verdict. */
  gateRuns: number | null;
  finished: number | null;
  runs: ExecutorsRun[];
  /** Why there are no figures: no sshd on this machine. */
  skipped?: string;
  /** Why a run is missing (a run land refused). */
  error?: string;
}

export interface ExecutorsOptions {
  n: number;
  p: number;
  seed: number;
  gateSeconds: number;
  /** Slots in all, split evenly over the two hosts. */
  slots: number;
  progress: (line: string) => void;
}

const HOSTS = ['land-bench-a', 'land-bench-b'];

/** Two sshd hosts and one ssh config naming both (LAND_SSH_CONFIG for the drain). */
async function startHosts(root: string): Promise<{ hosts: TestSshd[]; config: string }> {
  const hosts: TestSshd[] = [];
  try {
    for (const alias of HOSTS) {
      const dir = join(root, `sshd-${alias}`);
      mkdirSync(dir, { recursive: true });
      hosts.push(await startSshd(dir, { alias }));
    }
  } catch (error) {
    for (const host of hosts) host.stop();
    throw new BenchError(`executors: ${(error as Error).message}`);
  }
  const config = join(root, 'executors-ssh_config');
  writeFileSync(config, hosts.map((host) => host.configText).join('\n'));
  return { hosts, config };
}

export async function measureExecutors(root: string, opts: ExecutorsOptions): Promise<ExecutorsRow> {
  const k = Math.round(opts.p * opts.n);
  const row: ExecutorsRow = {
    ...{ n: opts.n, p: opts.p, k, seed: opts.seed, gateSeconds: opts.gateSeconds, culprits: culpritPositions(opts.n, k, opts.seed), slots: opts.slots },
    ...{ hosts: HOSTS.length, wallSecondsLocal1: null, wallSecondsK: null, ratio: null, wallSecondsLocalK: null, gateRuns: null, finished: null, runs: [] },
  };
  if (!sshdInstalled()) {
    row.skipped = `no sshd (${SSHD} is not installed; LAND_TEST_SSHD names another)`;
    opts.progress(`executors: skipped: ${row.skipped}`);
    return row;
  }
  const queue = prepareSleepQueue(root, 'executors', opts);
  const { policy } = queue;
  const { hosts, config } = await startHosts(root);
  try {
    const perHost = Math.ceil(opts.slots / HOSTS.length);
    const executors = HOSTS.map((host) => ({
      host: `ssh://${host}`,
      slots: perHost,
      dir: join(root, `executor-${host}`),
      land: `${process.execPath} ${LAND_BIN}`,
    }));
    const runs: [string, Record<string, unknown> | null][] = [
      ['local 1', null],
      [`ssh ${opts.slots}`, { ...policy, executors, batch: { parallel: opts.slots } }],
      [`local ${opts.slots}`, { ...policy, executors: [{ host: 'local', slots: opts.slots }], batch: { parallel: opts.slots } }],
    ];
    for (const [label, runPolicy] of runs) {
      opts.progress(`executors: land run on ${label} slot(s) (gates sleep ${opts.gateSeconds} s)`);
      try {
        row.runs.push({ slots: label, ...drainCopy(root, 'executors', label, queue, runPolicy, { LAND_SSH_CONFIG: config }) });
      } catch (error) {
        if (!(error instanceof BenchError)) throw error;
        row.error = `${label}: ${error.message}`;
        opts.progress(`executors: ${row.error}`);
        break;
      }
    }
  } finally {
    for (const host of hosts) host.stop();
  }
  const [local, remote, localK] = [row.runs[0], row.runs[1], row.runs[2]];
  if (localK) row.wallSecondsLocalK = localK.wallSeconds;
  if (local) row.wallSecondsLocal1 = local.wallSeconds;
  if (remote) [row.wallSecondsK, row.gateRuns, row.finished] = [remote.wallSeconds, remote.gateRuns, remote.gateRunsFinished];
  if (local && remote) row.ratio = remote.wallSeconds / local.wallSeconds;
  return row;
}
