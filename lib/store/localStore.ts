// A clone's own queue: the QueueStore of a state folder (.git/land/). Each concern's files are
// read and written by a module of local/; this class holds the folder and the queue lock, and
// lands by compare-and-swap. A queue kept in a remote wraps one of these for its cache folder.
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { branchRef } from '../git/revParse.js';
import type { ActiveIndex } from './activeIndex.js';
import { ensureDir, removeStaleTempFiles } from './atomic.js';
import type { JsonLines } from './jsonl.js';
import type { LandingResult, TrainLanding } from './landing.js';
import { recordProcessAlive, type TokenRecord } from './landingToken.js';
import * as caches from './local/caches.js';
import * as drainerFiles from './local/drainerFiles.js';
import * as indexFiles from './local/indexFiles.js';
import * as jobs from './local/jobs.js';
import * as journal from './local/journal.js';
import { landByCas } from './local/landByCas.js';
import * as logs from './local/logs.js';
import * as unsynced from './local/unsynced.js';
import { currentBootId } from './bootId.js';
import * as metrics from './local/metrics.js';
import { QueueLock } from './local/queueLock.js';
import { acquireDrainLock, readDrainHolder, type DrainLease } from './lock.js';
import { StatePaths } from './paths.js';
import { appendPrunedJobs, forgetJobs, prunedJobsOf, readPrunedJobsFile, removeJobFiles, stillPrunable } from './local/prune.js';
import type { PruneRequest, PruneResult, QueueView } from './queueKind.js';
import type { JobListing, JobRead, ProtectHookRead, QueueStore, RefreshOptions, SourcedRow, UnsyncedWrites } from './queueStore.js';
import type { TextSlice } from './scan.js';
import type {
  DrainHolder,
  JobRecord,
  JournalEntry,
  JournalLine,
  Proof,
  ProofRead,
  ProtectHook,
  ExecutorHealthFile,
  VerdictRecord,
  WindowState,
  WrittenMetricsRow,
} from './formats/index.js';
import { waitForJobsChange, type WaitForChangeOptions, type WaitOutcome } from './watch.js';

export interface LocalStoreOptions {
  /** The repository's git common dir; default: the folder the state folder is in (.git/land/ → .git). */
  gitDir?: string;
  /** How long a change waits for the queue lock, in waits of at most 100 ms (default 600: about a minute). */
  queueLockRetries?: number;
}

type Row = Record<string, unknown>;

export class LocalStore implements QueueStore {
  readonly paths: StatePaths;
  readonly gitDir: string;
  private readonly queueLock: QueueLock;
  /** False while a drain holds the unsynced mark: job records and window.json are written without fsync. */
  private durableRecords = true;
  note: (message: string) => void = (message) => process.stderr.write(`land: ${message}\n`);

  constructor(
    readonly root: string,
    opts: LocalStoreOptions = {},
  ) {
    this.paths = new StatePaths(root);
    this.gitDir = opts.gitDir ?? dirname(root);
    this.queueLock = new QueueLock(this.paths, opts.queueLockRetries ?? 600);
  }

  // ---- what a clone's own queue is ---------------------------------------------------------

  readonly drainLockName = 'the drain lock';
  readonly movesLocalTarget = true;
  readonly rowsPerDrainer = false;

  async refresh(_opts: RefreshOptions = {}): Promise<void> {}

  /** This clone's own queue, no lease. */
  async describe(): Promise<QueueView> {
    return { remote: null, drainer: null };
  }

  async drainerRunning(): Promise<boolean> {
    return this.drainerAlive();
  }

  /** A clone's own queue: its index's lastId says it all (the journal keeps pruned jobs' lines). */
  lastIdGiven(): string | null {
    return null;
  }

  /** `land gc`: under the queue lock, the records of the jobs still finished and the logs of the trains none of whose members was retried go (local/prune.ts). */
  prune(request: PruneRequest): Promise<PruneResult> {
    return this.withQueueLock(() => {
      const { jobs, trains } = stillPrunable(request, (id) => this.readJob(id));
      // What stats, report and tune count of them is kept first: their figures must not change.
      appendPrunedJobs(
        this.paths.pruned,
        prunedJobsOf(jobs, (id) => this.readJob(id)),
      );
      forgetJobs(this, jobs, 'gc');
      removeJobFiles(this.paths, [], trains);
      return { jobs, trains, remoteRefs: 0 };
    });
  }

  /** The hook check, the members marked landing, then one compare-and-swap of the target (local/landByCas.ts). */
  async land(landing: TrainLanding): Promise<LandingResult> {
    const hookOff = await landing.hookOff();
    if (hookOff) return { kind: 'tried', outcome: { kind: 'hook_off', message: hookOff } };
    await landing.markLanding();
    const { cwd, target, base, commit, message } = landing;
    return { kind: 'tried', outcome: await landByCas({ cwd, target, base, train: commit, tokens: this, message }) };
  }

  /** A clone's own queue runs only its own developers' changes. */
  defaultSandboxMode(): 'auto' | 'required' {
    return 'auto';
  }

  targetRef(target: string): string {
    return branchRef(target);
  }

  keptIn(_remote: string): boolean {
    return false;
  }

  // ---- the folder ------------------------------------------------------------------------------

  ensure(): void {
    for (const dir of [this.paths.jobsDir, this.paths.logsDir, this.paths.verdictsDir, this.paths.proofsDir, this.paths.locksDir]) ensureDir(dir);
  }

  /** `rm -rf .git/land` by a gate: other writers may have re-created parts of it since (locks/, logs/). */
  stateFolderVanished(): boolean {
    return !existsSync(this.paths.jobsDir) && !existsSync(this.paths.journal);
  }

  unsyncedWrites(): UnsyncedWrites | null {
    const bootId = currentBootId();
    if (bootId === null) return null;
    const { paths } = this;
    return {
      bootId,
      readMark: () => unsynced.readUnsyncedMark(paths),
      begin: (mark) => {
        unsynced.writeUnsyncedMark(paths, mark);
        this.durableRecords = false;
      },
      syncRecords: (ids) => unsynced.syncRecords(paths, ids),
      dropUnreadableWindow: () => unsynced.dropUnreadableWindow(paths),
      end: () => {
        this.durableRecords = true;
        unsynced.removeUnsyncedMark(paths);
      },
    };
  }

  removeStaleTempFiles(): string[] {
    const { paths } = this;
    const dirs = [paths.root, paths.jobsDir, paths.locksDir, paths.verdictsDir, paths.proofsDir, join(paths.proofsDir, 'tips'), paths.gatePassesDir];
    return dirs.flatMap((dir) => removeStaleTempFiles(dir).map((name) => join(dir, name)));
  }

  // ---- jobs and journal (local/jobs.ts, local/journal.ts) -------------------------------------

  readJob = (id: string): JobRecord | null => jobs.readJob(this.paths, id);
  jobExists = (id: string): boolean => jobs.jobExists(this.paths, id);
  readJobOrProblem = (id: string): JobRead | null => jobs.readJobOrProblem(this.paths, id);
  listJobs = (opts: { check?: 'schema' | 'shape' } = {}): JobListing => jobs.listJobs(this.paths, opts);
  jobFileIds = (): string[] => jobs.jobFileIds(this.paths);
  jobsVersion = (): string => jobs.jobsVersion(this.paths);
  /** fs.watch on the jobs folder, with a poll every 2 s as the fallback. */
  waitForChange = (opts: WaitForChangeOptions): Promise<WaitOutcome> => waitForJobsChange(this.paths.jobsDir, opts);
  writeJob = (job: JobRecord): void => jobs.writeJob(this.paths, job, this.durableRecords);
  appendJournal = (entry: JournalLine): number => journal.appendJournal(this.paths, entry);
  /** Appends a line as it was read elsewhere (a remote queue's lines, written by any version). */
  replayJournal = (entry: JournalEntry): number => journal.appendJournal(this.paths, entry);
  takeBackJournal = (offset: number): void => journal.takeBackJournal(this.paths, offset);
  hasJournal = (): boolean => journal.hasJournal(this.paths);
  journaledJobIds = (start = 0): string[] => journal.journaledJobIds(this.paths, start);
  journalMark = (end?: number): { size: number; tail: string | null } => journal.journalMark(this.paths, end);
  readJournal = (): JsonLines<JournalEntry> => journal.readJournal(this.paths);
  readJournalOf = (id: string): { entries: JournalEntry[]; badLines: number[] } => journal.readJournalOf(this.paths, id);
  scanJournal = (marker: string): JournalEntry[] => journal.scanJournal(this.paths, marker);
  readJournalOfJobs = (ids: readonly string[]): Map<string, JournalEntry[]> => journal.readJournalOfJobs(this.paths, ids);

  // ---- the index of active jobs, the branches' job lists (local/indexFiles.ts) ----------------

  readIndex = (): ActiveIndex | null => indexFiles.readIndex(this.paths);
  writeIndex = (index: ActiveIndex): boolean => indexFiles.writeIndex(this.paths, index);
  removeIndex = (): void => indexFiles.removeIndex(this.paths);
  hasBranchLists = (): boolean => indexFiles.hasBranchLists(this.paths);
  branchJobIds = (branch: string): string[] | null => indexFiles.branchJobIds(this.paths, branch);
  writeBranchJobs = (branch: string, ids: readonly string[]): boolean => indexFiles.writeBranchJobs(this.paths, branch, ids);

  /** Adds job ids to a branch's list (an unreadable list is rewritten); false when it could not be written. */
  addBranchJobs(branch: string, ids: readonly string[]): boolean {
    const known = this.branchJobIds(branch) ?? [];
    const added = ids.filter((id) => !known.includes(id));
    return added.length ? this.writeBranchJobs(branch, [...known, ...added]) : true;
  }

  // ---- a drainer's caches (local/caches.ts, local/metrics.ts, local/logs.ts) ------------------

  getVerdict = (tree: string, gatesHash: string): VerdictRecord | null => caches.getVerdict(this.paths, tree, gatesHash);
  putVerdict = (record: VerdictRecord): void => caches.putVerdict(this.paths, record);
  readVerdict = (tree: string, gatesHash: string): VerdictRecord | null => caches.readVerdict(this.paths, tree, gatesHash);
  listVerdicts = (): VerdictRecord[] => caches.listVerdicts(this.paths);
  removeVerdict = (tree: string, gatesHash: string): boolean => caches.removeVerdict(this.paths, tree, gatesHash);
  readProof = (tree: string): ProofRead => caches.readProof(this.paths, tree);
  writeProof = (proof: Proof): void => caches.writeProof(this.paths, proof);
  readProofTreeOfTip = (tip: string): string | null => caches.readProofTreeOfTip(this.paths, tip);
  writeProofTreeOfTip = (tip: string, tree: string): void => caches.writeProofTreeOfTip(this.paths, tip, tree);
  readWindow = (): WindowState | null => caches.readWindow(this.paths);
  writeWindow = (state: WindowState): void => caches.writeWindow(this.paths, state, this.durableRecords);
  readGatePasses = (commit: string): Record<string, string> | null => caches.readGatePasses(this.paths, commit);
  writeGatePasses = (commit: string, passes: Record<string, string>): void => caches.writeGatePasses(this.paths, commit, passes);
  appendMetric = (row: WrittenMetricsRow): void => metrics.appendMetric(this.paths, row);
  readMetrics = (): JsonLines<Row> => metrics.readMetrics(this.paths);
  readMetricsTail = (enough: (rows: Row[]) => boolean): Row[] => metrics.readMetricsTail(this.paths, enough);
  readMetricsMatching = (needles: readonly string[]): { rows: Row[]; badLines: number[] } => metrics.readMetricsMatching(this.paths, needles);
  readMetricsMatchingFrom = (needles: readonly string[]): { rows: SourcedRow[]; badLines: number[] } => {
    const read = metrics.readMetricsMatching(this.paths, needles);
    return { rows: read.rows.map((row) => ({ row, drainer: null })), badLines: read.badLines };
  };
  readOwnMetrics = (): JsonLines<Row> => this.readMetrics();
  readPrunedJobs = (): JobRecord[] => readPrunedJobsFile(this.paths.pruned);
  readOwnMetricsMatching = (needles: readonly string[]): { rows: Row[]; badLines: number[] } => this.readMetricsMatching(needles);
  /** The rows from byte `offset` of metrics.jsonl on (a remote queue's drainer publishes them). */
  readMetricsFrom = (offset: number): { rows: Row[]; end: number } => metrics.readMetricsFrom(this.paths, offset);
  metricsSize = (): number => metrics.metricsSize(this.paths);
  hasLog = (id: string): boolean => logs.hasLog(this.paths, id);
  hasOwnLog = (id: string): boolean => logs.hasLog(this.paths, id);
  readLogFrom = (id: string, offset = 0): TextSlice => logs.readLogFrom(this.paths, id, offset);
  scanLog = (id: string, onLine: (line: string) => void): boolean => logs.scanLog(this.paths, id, onLine);
  logPath = (id: string): string => logs.logPath(this.paths, id);
  freshLogId = (id: string): string => logs.freshLogId(this.paths, id);
  claimTrainId = (batchId: string): string => logs.claimTrainId(this.paths, batchId);
  trainDir = (id: string): string => logs.trainDir(this.paths, id);
  listTrainDirs = (): string[] => logs.listTrainDirs(this.paths);
  reopenTrainDir = (dir: string): void => logs.reopenTrainDir(dir);
  removeTrainDir = (dir: string): boolean => logs.removeTrainDir(dir);

  // ---- locks and the drainer's own files (lock.ts, local/drainerFiles.ts) ---------------------

  /** A short critical section over the queue (local/queueLock.ts). */
  withQueueLock<T>(fn: () => Promise<T> | T): Promise<T> {
    return this.queueLock.hold(fn);
  }

  /** The same lock here: a clone's own queue shares every change alike. */
  withUnsharedQueueLock<T>(fn: () => Promise<T> | T): Promise<T> {
    return this.withQueueLock(fn);
  }

  acquireDrainLock(opts: { wait: boolean; onWaiting?: (holder: DrainHolder | null) => void; shouldStop?: () => boolean }): Promise<DrainLease> {
    return acquireDrainLock(this.paths, opts);
  }

  drainHolder = (): DrainHolder | null => readDrainHolder(this.paths);

  /** Whether a drainer holds the queue now: a holder on this host must be a live process. */
  drainerAlive(): boolean {
    const holder = readDrainHolder(this.paths);
    if (!holder) return false;
    if (holder.host !== hostname()) return true; // trusted until its lock goes stale
    return recordProcessAlive(holder);
  }

  readToken = (): TokenRecord | null => drainerFiles.readToken(this.paths);
  writeToken = (): string => drainerFiles.writeToken(this.paths);
  clearToken = (token?: string): void => drainerFiles.clearToken(this.paths, token);
  tokenFile = (): string => this.paths.token;
  writePublishState = (state: Record<string, unknown>): void => drainerFiles.writePublishState(this.paths, state);
  readProtectHook = (): ProtectHookRead => drainerFiles.readProtectHook(this.paths);
  writeProtectHook = (hook: ProtectHook): void => drainerFiles.writeProtectHook(this.paths, hook);
  readExecutorHealth = (): ExecutorHealthFile | null => drainerFiles.readExecutorHealth(this.paths);
  writeExecutorHealth = (health: ExecutorHealthFile): void => drainerFiles.writeExecutorHealth(this.paths, health);
  clearProtectHook = (): void => drainerFiles.clearProtectHook(this.paths);
}
