// The queue's store, as every caller outside lib/store sees it: one interface, grouped by concern,
// with two implementations. LocalStore (localStore.ts) keeps a clone's own queue in its state
// folder (.git/land/); RemoteStore (remoteStore.ts) keeps a queue in a git remote, wrapping the
// LocalStore of a cache folder (.git/land/remote/<remote>/) and pushing its shared writes. What
// differs between the two is a member of QueueKind: no caller asks which store it holds.
import type { ActiveIndex } from './activeIndex.js';
import type { JsonLines } from './jsonl.js';
import type { LandingResult, TrainLanding } from './landing.js';
import type { TokenRecord } from './landingToken.js';
import type { CorruptRecord, JobListing, JobRead } from './local/jobs.js';
import type { ProtectHookRead } from './local/drainerFiles.js';
import type { DrainLease } from './lock.js';
import type { StatePaths } from './paths.js';
import type { PruneRequest, PruneResult, QueueView } from './queueKind.js';
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
  UnsyncedMark,
  VerdictRecord,
  WindowState,
  WrittenMetricsRow,
} from './formats/index.js';
import type { WaitForChangeOptions, WaitOutcome } from './watch.js';

export type { CorruptRecord, JobListing, JobRead, ProtectHookRead };

export interface RefreshOptions {
  /** A drainer riding out an outage of the remote stops trying when it holds. */
  shouldStop?: () => boolean;
}

/** The folder the store keeps its files in. */
export interface StateFolder {
  /** The state folder: .git/land/, or a remote queue's cache folder. */
  readonly root: string;
  readonly paths: StatePaths;
  /** The repository's git common dir (the folder the state folder is in, whichever queue it holds). */
  readonly gitDir: string;
  /** Creates the state folder's layout (idempotent). */
  ensure(): void;
  /** Whether the state folder was removed under a running process (jobs folder and journal both gone). */
  stateFolderVanished(): boolean;
  /** Removes the temp files killed writers left in every folder of the state; returns their paths. */
  removeStaleTempFiles(): string[];
  /**
   * Job records and window.json written without fsync while a drain runs, the journal (fsynced
   * first) able to rebuild them (lib/queue/unsyncedWrites.ts); null: this store always fsyncs them
   * (no boot id to tell a power cut by, or a queue kept in a remote, whose cache the remote rebuilds).
   */
  unsyncedWrites(): UnsyncedWrites | null;
  /**
   * Where the queue's one-line notes to a person go (a slow-path rebuild of the index of active
   * jobs, lib/queue/activeSet.ts): stderr, unless whoever holds this store points them elsewhere.
   */
  note: (message: string) => void;
}

/** Writes without fsync, and what makes them durable again (lib/store/local/unsynced.ts). */
export interface UnsyncedWrites {
  /** This boot of the machine (lib/store/bootId.ts). */
  readonly bootId: string;
  readMark(): UnsyncedMark | null;
  /** Writes the mark (fsynced); from then on this store writes job records and window.json without fsync. */
  begin(mark: UnsyncedMark): void;
  /** Fsyncs the records of `ids`, window.json and their folders. */
  syncRecords(ids: readonly string[]): void;
  /** Removes a window.json a power cut left unreadable; true when it did. */
  dropUnreadableWindow(): boolean;
  /** Writes with fsync again and removes the mark (after syncRecords). */
  end(): void;
}

/** The job records and the journal: the queue's truth, shared by everyone who uses the queue. */
export interface JobsAndJournal {
  readJob(id: string): JobRecord | null;
  jobExists(id: string): boolean;
  /**
   * The highest job id the queue ever gave out, when the store knows more than its records and
   * journal (a queue in a remote: its seq ref, which also counts jobs `land gc` pruned); null for
   * a clone's own queue. New ids are allocated after it.
   */
  lastIdGiven(): string | null;
  readJobOrProblem(id: string): JobRead | null;
  listJobs(opts?: { check?: 'schema' | 'shape' }): JobListing;
  jobFileIds(): string[];
  /** A token that changes whenever a job record is added, rewritten or removed. */
  jobsVersion(): string;
  /** Waits until the job records differ from `since`, the timeout passes or the signal aborts. */
  waitForChange(opts: WaitForChangeOptions): Promise<WaitOutcome>;
  /** Writes a record (shared). Only lib/queue's transition functions call this, after journaling. */
  writeJob(job: JobRecord): void;
  /** Appends a journal line (shared); returns where it starts, for takeBackJournal. */
  appendJournal(entry: JournalLine): number;
  takeBackJournal(offset: number): void;
  hasJournal(): boolean;
  journaledJobIds(start?: number): string[];
  journalMark(end?: number): { size: number; tail: string | null };
  readJournal(): JsonLines<JournalEntry>;
  readJournalOf(id: string): { entries: JournalEntry[]; badLines: number[] };
  scanJournal(marker: string): JournalEntry[];
  readJournalOfJobs(ids: readonly string[]): Map<string, JournalEntry[]>;
}

/** The index of active jobs and the branches' job lists: caches of the journal, kept with it. */
export interface ActiveIndexFiles {
  readIndex(): ActiveIndex | null;
  writeIndex(index: ActiveIndex): boolean;
  removeIndex(): void;
  hasBranchLists(): boolean;
  branchJobIds(branch: string): string[] | null;
  writeBranchJobs(branch: string, ids: readonly string[]): boolean;
  addBranchJobs(branch: string, ids: readonly string[]): boolean;
}

/** A metrics row and the drainer that published it (null: this clone's own). */
export interface SourcedRow {
  row: Record<string, unknown>;
  drainer: string | null;
}

/** What one drainer keeps for itself: verdicts, proofs, the window, metrics, logs, train folders, gate passes. */
export interface DrainerCaches {
  /** The verdict the drain may act on: null when none, corrupt, or voided (lib/store/formats/verdict.ts). */
  getVerdict(tree: string, gatesHash: string): VerdictRecord | null;
  /** The entry as written, voided or not (a drain asks whether the target's FAIL was voided). */
  readVerdict(tree: string, gatesHash: string): VerdictRecord | null;
  putVerdict(record: VerdictRecord): void;
  /** Every readable entry of the verdict cache, voided ones included (`land verdicts`). */
  listVerdicts(): VerdictRecord[];
  /** Removes one entry of the verdict cache; false when there was none. */
  removeVerdict(tree: string, gatesHash: string): boolean;
  /** The proof of `tree`; 'corrupt' when its file is not a proof of that tree (lib/store/formats/proof.ts). */
  readProof(tree: string): ProofRead;
  writeProof(proof: Proof): void;
  readProofTreeOfTip(tip: string): string | null;
  writeProofTreeOfTip(tip: string, tree: string): void;
  readWindow(): WindowState | null;
  writeWindow(state: WindowState): void;
  appendMetric(row: WrittenMetricsRow): void;
  readMetrics(): JsonLines<Record<string, unknown>>;
  readMetricsTail(enough: (rows: Record<string, unknown>[]) => boolean): Record<string, unknown>[];
  readMetricsMatching(needles: readonly string[]): { rows: Record<string, unknown>[]; badLines: number[] };
  /**
   * readMetricsMatching's rows in the same order, each with who wrote it: `drainer` null for this
   * clone's own rows (always, in a clone's own queue), else the id of the drainer whose published
   * metrics ref it came from (anyone who can push can write one: `land repro` checks such a row).
   */
  readMetricsMatchingFrom(needles: readonly string[]): { rows: SourcedRow[]; badLines: number[] };
  /**
   * This clone's own metrics rows only, never another drainer's published ones (anyone who can push
   * can forge those): what `land reconcile` and `land gc` decide from. A clone's own queue: all its rows.
   */
  readOwnMetrics(): JsonLines<Record<string, unknown>>;
  /**
   * What `land gc` kept of the finished jobs it pruned (formats/prunedJob.ts): the fields `land
   * stats`, `report` and `tune` count, so their figures do not change when records go. A queue in a
   * remote: every clone's gc, from refs/land/pruned (shown, never decided from).
   */
  readPrunedJobs(): JobRecord[];
  readOwnMetricsMatching(needles: readonly string[]): { rows: Record<string, unknown>[]; badLines: number[] };
  hasLog(id: string): boolean;
  /** A log this clone's own drain wrote (not a copy another drainer published): what its `land gc` may delete. */
  hasOwnLog(id: string): boolean;
  readLogFrom(id: string, offset?: number): TextSlice;
  scanLog(id: string, onLine: (line: string) => void): boolean;
  logPath(id: string): string;
  freshLogId(id: string): string;
  claimTrainId(batchId: string): string;
  trainDir(id: string): string;
  listTrainDirs(): string[];
  /** Gives the drainer back every folder a gate left in a train's worktree (u+rwx, symlinks not followed). */
  reopenTrainDir(dir: string): void;
  /** False when something of the folder is left. */
  removeTrainDir(dir: string): boolean;
  readGatePasses(commit: string): Record<string, string> | null;
  writeGatePasses(commit: string, passes: Record<string, string>): void;
}

/** The locks, and a drainer's own files: the landing token, the protecting hook's record, publish state. */
export interface DrainerFiles {
  /** A short critical section over the queue (a remote queue: a transaction pushed when it ends). */
  withQueueLock<T>(fn: () => Promise<T> | T): Promise<T>;
  /** The queue lock for a change only this drainer needs (its bookkeeping): never pushed by itself. */
  withUnsharedQueueLock<T>(fn: () => Promise<T> | T): Promise<T>;
  acquireDrainLock(opts: { wait: boolean; onWaiting?: (holder: DrainHolder | null) => void; shouldStop?: () => boolean }): Promise<DrainLease>;
  drainHolder(): DrainHolder | null;
  drainerAlive(): boolean;
  readToken(): TokenRecord | null;
  writeToken(): string;
  clearToken(token?: string): void;
  /** The file holding the landing token's hash, which the protecting hook checks LAND_TOKEN against. */
  tokenFile(): string;
  writePublishState(state: Record<string, unknown>): void;
  readProtectHook(): ProtectHookRead;
  writeProtectHook(hook: ProtectHook): void;
  /** Which executors this clone's drain last found down (executors.json); null when none was written. */
  readExecutorHealth(): ExecutorHealthFile | null;
  writeExecutorHealth(health: ExecutorHealthFile): void;
  clearProtectHook(): void;
}

/** What differs between a clone's own queue and a queue kept in a remote. */
export interface QueueKind {
  /** Brings the store up to the queue's source (a remote queue fetches); nothing for a local queue. */
  refresh(opts?: RefreshOptions): Promise<void>;
  /** Where the queue is kept and who drains it (`land status`). */
  describe(): Promise<QueueView>;
  /** Whether a drainer drains the queue now: this clone's live drain lock, or a remote queue's held lease. */
  drainerRunning(): Promise<boolean>;
  /** Lands a train: a compare-and-swap of the target, or one push of the target with the landed records. */
  land(landing: TrainLanding): Promise<LandingResult>;
  /** The sandbox mode when the policy names none (docs/sandbox.md): auto for a clone's own queue, required for a remote's. */
  defaultSandboxMode(): 'auto' | 'required';
  /** The ref this clone reads the target from: the branch, or its remote-tracking ref. */
  targetRef(target: string): string;
  /** What a drainer waits for while another drains: "the drain lock", or "the queue lease on <remote>". */
  readonly drainLockName: string;
  /** Whether a landing moves this clone's own target branch (whose checkout recovery brings along after a crash). */
  readonly movesLocalTarget: boolean;
  /** Whether the queue is kept in `remote` (a landing there is already published). */
  keptIn(remote: string): boolean;
  /** Whether metrics rows are each drainer's own (a remote queue's clones do not share them). */
  readonly rowsPerDrainer: boolean;
  /**
   * `land gc`: removes the finished jobs' records and the trains' logs from the state folder; a queue
   * in a remote first deletes their refs (records, tips, logs, train commits) in one atomic push.
   */
  prune(request: PruneRequest): Promise<PruneResult>;
}

export interface QueueStore extends StateFolder, JobsAndJournal, ActiveIndexFiles, DrainerCaches, DrainerFiles, QueueKind {}
