// `land repro`: rebuilds the latest train in which a job failed (same base, same members in the
// same order at the same tips, the same merges, through buildTrain itself) in a fresh worktree
// outside the state folder, and names the gates the drainer ran on it, read from the policy on
// that train's base, with the LAND_* environment the train had. Trusted paths (policy `trusted`)
// are restored from the base as the drainer restored them, so the checkout holds the tree that
// was gated. The row is checked first and the sandbox is the current target's (reproTrust.ts): a
// published row may be forged. The pure choices are exported
// for tests; the rest is the thin effectful shell.
import { pinWorktree } from '../git/index.js';
import { isolationOf, type SandboxHost } from '../landing/gates/sandbox.js';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gatesHash, POLICY_FILE, policyOrThrow, type Gate, type LoadedPolicy, type Policy, type SandboxPolicy } from '../config/index.js';
import { LandError } from '../errors.js';
import { addDetachedWorktree, assertOutsideGitFolder, isKnownAncestor, showFile, treeOf } from '../git/index.js';
import { buildTrain, type BuiltTrain } from '../landing/trains/buildTrain.js';
import type { TrainEnv } from '../landing/gates/gateEnv.js';
import { runGates, type GateRun } from '../landing/gates/gateRunner.js';
import type { LogSink } from '../landing/gates/logSink.js';
import { runRefresh } from '../landing/gates/refresh.js';
import { gatedTreeOf, restoreTrustedInWorktree } from '../landing/gates/trusted.js';
import { newJobRecord } from '../queue/index.js';
import type { QueueStore, JobRecord } from '../store/index.js';
import { knownTipsOf, reproSandbox, rowRefusal } from './reproTrust.js';
import { parseTrainRows, type TrainRow } from './trainRow.js';

/** A train row with everything a rebuild needs. */
export interface RebuildableRow extends TrainRow {
  base: string;
  tips: string[];
  batch: string;
}

/** The last FAIL train the job rode, from the metrics rows (file order); null when none. */
export function latestFailedRow<R extends TrainRow>(rows: readonly R[], jobId: string): R | null {
  const failed = rows.filter((row) => row.verdict === 'FAIL' && row.members.includes(jobId));
  return failed[failed.length - 1] ?? null;
}

export function assertRebuildable(row: TrainRow): RebuildableRow {
  if (!row.base || !row.tips || row.tips.length !== row.members.length || !row.batch) {
    throw new LandError('state', `train ${row.train} was recorded without its base and member tips (by an older land); it cannot be rebuilt`);
  }
  return row as RebuildableRow;
}

/** The LAND_* variables the train's gates saw (LAND_TIP: the rebuilt commit, which has the same tree). */
export function reproEnv(row: RebuildableRow, commit: string): TrainEnv {
  return {
    LAND_TIP: commit,
    LAND_BASE: row.base,
    LAND_JOB: row.members.length === 1 ? (row.members[0] as string) : row.batch,
    LAND_MEMBERS: row.members.join(' '),
    LAND_TRAIN: row.train,
  };
}

/** The gates the drainer ran on the train: those it selected, in policy order; all when it ran none (cached). */
export function reproGates(policy: Policy, row: TrainRow): Gate[] {
  const selected = row.gate?.selected;
  if (!selected || row.cached) return [...policy.gates];
  const chosen = policy.gates.filter((gate) => selected.includes(gate.name));
  return chosen.length ? chosen : [...policy.gates];
}

/** The member records to rebuild with: as recorded, at the tips the train merged. */
function memberRecords(store: QueueStore, row: RebuildableRow): JobRecord[] {
  return row.members.map((id, i) => {
    const tip = row.tips[i] as string;
    const record = store.readJob(id);
    if (record) return { ...record, tip };
    const branch = row.branches?.[i] ?? id;
    return newJobRecord({ id, branch, tip, title: branch, submitter: 'unknown', urgent: false });
  });
}

/** The folder to rebuild in: `--dir` (new or empty; checked outside the git folder by the caller), else a new temp folder. */
export function reproDir(train: string, requested: string | undefined, cwd: string): string {
  if (requested === undefined) return realpathSync(mkdtempSync(join(tmpdir(), `land-repro-${train}-`)));
  const dir = resolve(cwd, requested);
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new LandError('usage', `--dir ${dir} exists and is not a folder`);
    if (readdirSync(dir).length) throw new LandError('usage', `--dir ${dir} exists and is not empty`, { hint: 'name a new or empty folder' });
  }
  return dir;
}

export interface ReproTrain {
  job: JobRecord;
  row: RebuildableRow;
  /** The drainer whose published metrics the row came from; null: this clone's own drainer wrote it. */
  from: string | null;
  /** The policy read from the train's base, as the drainer read it (its sandbox: see `sandbox`). */
  policy: Policy;
  /** The sandbox the refresh entries and gates run in: the current target's, its mode never below it (reproTrust.ts). */
  sandbox: SandboxPolicy;
  /** The base's own sandbox mode was less strict than the current target's: raised to it. */
  sandboxRaised: boolean;
  policyMatches: boolean | null;
  gates: Gate[];
  dir: string;
  built: BuiltTrain;
  env: TrainEnv;
  treeMatchesTrain: boolean;
  /** The tree checked out for the gates: the train's with its trusted paths restored from the base. */
  gatedTree: string;
  /** The trusted paths the train changes, restored from the base in the checkout. */
  restored: string[];
  /** Null unless the job ended failed with a tree on its record (the tree of the train it failed in). */
  treeMatchesRecord: boolean | null;
}

/** Finds the job's latest FAIL train and who wrote its row; a job that never failed a train is a `not_found` error. */
export function failedTrainOf(store: QueueStore, job: JobRecord): { row: RebuildableRow; from: string | null } {
  const rows = store.readMetricsMatchingFrom([job.id]).rows.flatMap((sourced) => {
    const parsed = parseTrainRows([sourced.row]).rows[0];
    return parsed ? [{ ...parsed, from: sourced.drainer }] : [];
  });
  const row = latestFailedRow(rows, job.id);
  if (!row) {
    const why =
      job.state === 'failed' ? `it failed without a failing train (${job.reason ?? 'no reason'}: ${job.error?.message ?? ''})`.trim() : `it is ${job.state}`;
    throw new LandError('not_found', `job ${job.id} never failed a train; nothing to reproduce: ${why}`, { hint: `land why ${job.id} tells its story` });
  }
  const { from, ...train } = row;
  return { row: assertRebuildable(train), from };
}

/** Refuses (exit 5) a row whose base is outside the target's history or whose tips the queue never recorded (reproTrust.ts). */
async function assertTrusted(cwd: string, store: QueueStore, row: RebuildableRow, from: string | null, targetTip: string): Promise<void> {
  const journals = store.readJournalOfJobs(row.members);
  const knownTips = new Map<string, Set<string>>();
  for (const id of row.members) {
    const record = store.readJob(id);
    if (record) knownTips.set(id, knownTipsOf(record, journals.get(id) ?? []));
  }
  const refusal = rowRefusal(row, { baseInTarget: await isKnownAncestor(cwd, row.base, targetTip), knownTips });
  if (refusal === null) return;
  const source = from === null ? "this clone's metrics" : `the metrics drainer ${from} published`;
  throw new LandError('state', `train ${row.train} (from ${source}) cannot be rebuilt here: ${refusal}`, {
    hint: 'land repro rebuilds only trains on the target history with the tips the queue recorded (docs/failures.md#land-repro-id)',
  });
}

/** The policy on the train's base (checked to be in the target's history first), as the drainer read it. */
async function basePolicy(cwd: string, row: RebuildableRow): Promise<Policy> {
  const policyText = await showFile(cwd, row.base, POLICY_FILE);
  if (policyText === null) throw new LandError('config', `no ${POLICY_FILE} at the train's base ${row.base.slice(0, 12)}`);
  return policyOrThrow(policyText, `the base of train ${row.train} (${row.base.slice(0, 12)})`);
}

/** The train built again by the drainer's builder; a `state` error when it does not merge the same members. */
async function buildSameTrain(cwd: string, store: QueueStore, row: RebuildableRow): Promise<BuiltTrain> {
  const built = await buildTrain(cwd, row.base, await treeOf(cwd, row.base), memberRecords(store, row), row.train);
  const rebuilt = built.members.map((member) => member.job.id);
  if (built.skipped.length || built.contained.length || rebuilt.join(' ') !== row.members.join(' ')) {
    throw new LandError(
      'state',
      `train ${row.train} does not rebuild the same: ${built.skipped.length ? `${built.skipped.map((s) => s.job.id).join(', ')} now conflict` : 'members differ'}`,
    );
  }
  return built;
}

/**
 * Rebuilds the job's latest failed train in a new worktree. When the drainer ran refresh entries
 * on that train before its gates, they run here too (their output to `log`), so the tree checked
 * out is the tree that was gated.
 */
export async function rebuildFailedTrain(opts: {
  cwd: string;
  store: QueueStore;
  job: JobRecord;
  dir?: string;
  log: LogSink;
  signal?: AbortSignal;
  /** The machine's sandbox support (gates/sandboxHost.ts). */
  sandbox: SandboxHost;
  /** The target's policy and tip as `land run` would read them now (CommandContext.policy()). */
  target: LoadedPolicy;
}): Promise<ReproTrain> {
  const { cwd, store, job } = opts;
  if (opts.dir !== undefined) await assertOutsideGitFolder(cwd, resolve(cwd, opts.dir), '--dir');
  const { row, from } = failedTrainOf(store, job);
  await assertTrusted(cwd, store, row, from, opts.target.tip);
  const policy = await basePolicy(cwd, row);
  const sandbox = reproSandbox(policy, opts.target.policy, opts.sandbox);
  const recordedHash = row.gate?.gatesHash;
  const built = await buildSameTrain(cwd, store, row);

  const dir = reproDir(row.train, opts.dir, cwd);
  // Kept after the rebuild (the user runs the gates there); removed only when git refuses it and
  // the folder is ours (a --dir folder is the user's and stays).
  await addDetachedWorktree(cwd, dir, built.train, opts.dir === undefined ? { onCleanup: (left) => rmSync(left, { recursive: true, force: true }) } : {});
  const env = reproEnv(row, built.train);
  const pinned = pinWorktree(dir); // before a change's refresh entry runs in it
  if (row.gate?.refreshed?.length && policy.refresh.length) {
    const outcome = await runRefresh({
      cwd,
      store,
      entries: policy.refresh,
      base: row.base,
      train: built.train,
      worktree: dir,
      pinned,
      isolation: isolationOf(opts.sandbox, sandbox.sandbox),
      log: opts.log,
      signal: opts.signal,
      trainEnv: env,
    });
    if (outcome.kind === 'refreshed') {
      built.train = outcome.commit;
      built.tree = outcome.tree;
      env.LAND_TIP = outcome.commit;
    } else if (outcome.kind !== 'unchanged') {
      throw new LandError(
        'state',
        `the refresh entries of train ${row.train} did not run here: ${outcome.kind === 'failed' ? `"${outcome.entry}": ${outcome.status}` : 'stopped'}`,
        { hint: `the worktree is left in ${dir}` },
      );
    }
  }
  // The gates saw the base's version of the trusted paths: so does the checkout.
  const gated = await gatedTreeOf(cwd, policy, row.base, built.tree);
  await restoreTrustedInWorktree(dir, gated, pinned);
  return {
    job,
    row,
    from,
    policy,
    sandbox: sandbox.sandbox,
    sandboxRaised: sandbox.raised,
    policyMatches: recordedHash === undefined ? null : recordedHash === gatesHash(policy.gates),
    gates: reproGates(policy, row),
    dir,
    built,
    env,
    treeMatchesTrain: built.tree === row.tree,
    gatedTree: gated.tree,
    restored: gated.restored,
    treeMatchesRecord: job.state === 'failed' && job.tree !== null ? built.tree === job.tree : null,
  };
}

/** Runs the train's gates in the rebuilt worktree through the drainer's own gate runner. */
export function runReproGates(
  repro: ReproTrain,
  sandbox: SandboxHost,
  log: LogSink,
  signal?: AbortSignal,
  onGate?: Parameters<typeof runGates>[0]['onGate'],
): Promise<GateRun> {
  const isolation = isolationOf(sandbox, repro.sandbox);
  return runGates({ gates: repro.gates, worktree: repro.dir, train: repro.env, log, signal, onGate, isolation });
}
