// The remote-queue row: the same N one-line branches (gate `true`, batch.max 1: one train per job)
// drained from a clone's own queue and from a queue kept in a file:// remote (docs/remote.md).
// Both drains run through a PATH shim that logs git's arguments, so the remote drain's fetches and
// pushes are counted, and both pay the shim's few milliseconds per git process alike.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { buildRepo, BenchError, childEnv, git } from './git.js';
import { LAND_BIN, land, runSummary } from './land.js';
import { branchSpecs } from './scenarios.js';

export interface RemoteRow {
  branches: number;
  trains: number;
  localMs: number;
  remoteMs: number;
  /** (remote - local) / trains: what a remote queue adds to each train. */
  addedPerTrainMs: number;
  fetches: number;
  pushes: number;
  /** Fetches and pushes per train, without the drain's first fetch and its lease take and release. */
  fetchesPerTrain: number;
  pushesPerTrain: number;
  landedOnServer: number;
}

const TRUE_GATE = [{ name: 'true', run: ['true'] }];

/** A PATH folder whose `git` logs each call's subcommand to `log`, then runs the real git. */
export function shimDir(root: string): { dir: string; log: string } {
  const dir = join(root, 'git-shim');
  mkdirSync(dir, { recursive: true });
  const log = join(dir, 'calls.log');
  const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  // Logs git's subcommand: the first argument that is not an option, past `-c <name=value>` and `-C <dir>`.
  const script = [
    '#!/bin/sh',
    'skip=',
    'for a in "$@"; do',
    '  if [ -n "$skip" ]; then skip=; continue; fi',
    `  case "$a" in -c|-C) skip=1 ;; -*) ;; *) printf '%s\\n' "$a" >> '${log}'; break ;; esac`,
    'done',
    `exec '${real}' "$@"`,
    '',
  ];
  writeFileSync(join(dir, 'git'), script.join('\n'));
  chmodSync(join(dir, 'git'), 0o755);
  return { dir, log };
}

function drain(dir: string, shim: { dir: string; log: string }): { ms: number; trains: number; calls: string[] } {
  writeFileSync(shim.log, '');
  const started = performance.now();
  const env = childEnv({ CI: '1', NO_COLOR: '1', PATH: `${shim.dir}${delimiter}${process.env.PATH ?? ''}` });
  const run = spawnSync(process.execPath, [LAND_BIN, 'run', '--json'], { cwd: dir, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new BenchError(`land run in ${dir} exited ${run.status}: ${run.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return { ms, trains: runSummary(run.stdout).trains, calls: readFileSync(shim.log, 'utf8').split('\n').filter(Boolean) };
}

export function measureRemoteQueue(root: string, opts: { n: number; progress: (line: string) => void }): RemoteRow {
  const branches = branchSpecs(opts.n);
  const names = branches.map((b) => b.name);
  const policy = { target: 'main', gates: TRUE_GATE, batch: { max: 1 } };
  const shim = shimDir(root);

  opts.progress(`remote queue: local drain of ${opts.n} one-job trains`);
  const local = join(root, 'remote-row-local');
  mkdirSync(local, { recursive: true });
  buildRepo(local, policy, branches);
  land(local, ['submit', ...names, '--json']);
  land(local, ['window', '--set', '1']);
  const localRun = drain(local, shim);

  opts.progress(`remote queue: the same from a queue kept in a file:// remote`);
  const work = join(root, 'remote-row-work');
  mkdirSync(work, { recursive: true });
  buildRepo(work, { ...policy, queue: { remote: 'origin' } }, branches);
  const server = join(root, 'remote-row-server.git');
  git(root, ['init', '-q', '--bare', '-b', 'main', server]);
  git(work, ['remote', 'add', 'origin', `file://${server}`]);
  git(work, ['push', '-q', 'origin', 'refs/heads/*:refs/heads/*']);
  git(work, ['fetch', '-q', 'origin']);
  land(work, ['submit', ...names, '--json']);
  land(work, ['window', '--set', '1']);
  const remoteRun = drain(work, shim);
  const fetches = remoteRun.calls.filter((c) => c === 'fetch').length;
  const pushes = remoteRun.calls.filter((c) => c === 'push').length;
  const trains = Math.max(1, remoteRun.trains);
  const landed = Number(git(server, ['rev-list', '--count', '--first-parent', 'main'])) - 1;
  return {
    branches: opts.n,
    trains: remoteRun.trains,
    localMs: localRun.ms,
    remoteMs: remoteRun.ms,
    addedPerTrainMs: (remoteRun.ms - localRun.ms) / trains,
    fetches,
    pushes,
    // The drain's first fetch and the lease's take (fetch + push) and release (push) are once per drain.
    fetchesPerTrain: Math.max(0, fetches - 2) / trains,
    pushesPerTrain: Math.max(0, pushes - 2) / trains,
    landedOnServer: landed,
  };
}
