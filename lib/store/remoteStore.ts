// A queue kept in a git remote (docs/remote.md). The remote's refs/land/* are the truth; this
// store wraps the LocalStore of a cache folder (.git/land/remote/<remote>/) that mirrors them:
// reads go to the cache; each write either joins the transaction of the current hold of the queue
// lock (records, journal lines, the index and branch lists: pushed to the remote in one atomic
// push with a lease on every ref it moves; a refused push takes the cache's changes back, fetches,
// and runs the holder again, or for a landing reports the lost race) or, explicitly, stays in the
// drainer's own files (caches, logs, token, ...). A drainer's pushes also move its lease ref, so a
// drainer whose lease was taken over can change nothing.
import { branchRef, LocalRefsBusy, setLocalRef } from '../git/index.js';
import type { ActiveIndex } from './activeIndex.js';
import type { JsonLines } from './jsonl.js';
import type { LandingResult, TrainLanding } from './landing.js';
import type { TokenRecord } from './landingToken.js';
import type { LocalStore } from './localStore.js';
import type { DrainLease } from './lock.js';
import { OutageNotice } from './outage.js';
import type { StatePaths } from './paths.js';
import type { PruneRequest, PruneResult, QueueView } from './queueKind.js';
import { pruneRemote } from './remote/prune.js';
import type { JobListing, JobRead, ProtectHookRead, QueueStore, RefreshOptions, SourcedRow, UnsyncedWrites } from './queueStore.js';
import { RemoteCacheFiles } from './remote/cacheFiles.js';
import { byTime, byTimeOf, PublishedFiles } from './remote/publishedFiles.js';
import { QueueRaced, remoteError } from './remote/errors.js';
import { QueueFetcher } from './remote/fetcher.js';
import { sleepUnless, type TransactOptions } from './remote/transaction.js';
import { Transactions } from './remote/transactions.js';
import type { Lease, QueueRemote } from './remoteLayout.js';
import { LeaseKeeper, type LeaseTakeover, takeoverText } from './remoteLease.js';
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
import type { WaitForChangeOptions, WaitOutcome } from './watch.js';

type Row = Record<string, unknown>;

export class RemoteStore implements QueueStore {
  private readonly fetcher: QueueFetcher;
  private readonly txns: Transactions;
  private readonly lease: LeaseKeeper;
  private readonly files: RemoteCacheFiles;
  /** What drainers published, as this clone fetched it (remote/publishedFiles.ts). */
  private readonly published: PublishedFiles;

  /** The notes go where the cache's go (lib/queue/activeSet.ts works on this store, not the cache). */
  get note(): (message: string) => void {
    return this.cache.note;
  }
  set note(sink: (message: string) => void) {
    this.cache.note = sink;
  }

  /** `cache`: the cache folder's store, whose queue lock waits about ten minutes (see lib/store/index.ts). */
  constructor(
    private readonly cache: LocalStore,
    private readonly queue: QueueRemote,
  ) {
    const files = new RemoteCacheFiles(cache.root);
    const outage = new OutageNotice(queue.remote, queue.leaseSeconds, (line) => process.stderr.write(line));
    const fetcher = new QueueFetcher(queue, outage, this.targetRef(queue.target));
    this.lease = new LeaseKeeper(queue, {
      outage,
      fetch: () => fetcher.fetch(),
      leaseRef: () => fetcher.refs.lease,
      leaseIsCommit: () => fetcher.refs.leaseIsCommit,
      renew: (stillDue) => this.transact(() => undefined, { renew: stillDue, retry: false }),
      firstSeen: (oid) => files.leaseSeen(oid),
      noteSeen: (oid, at) => files.noteLeaseSeen(oid, at),
    });
    this.fetcher = fetcher;
    this.files = files;
    this.published = new PublishedFiles(cache.root);
    this.txns = new Transactions({ cache, files, fetcher, lease: this.lease, outage, queue, published: this.published });
  }

  get root(): string {
    return this.cache.root;
  }

  get paths(): StatePaths {
    return this.cache.paths;
  }

  get gitDir(): string {
    return this.cache.gitDir;
  }

  // ---- what a queue kept in a remote is -------------------------------------------------------

  get drainLockName(): string {
    return `the queue lease on ${this.queue.remote}`;
  }

  /** A landing moves the remote's branch; this clone's own branch and checkout stay as they are. */
  readonly movesLocalTarget = false;
  /** Each drainer keeps its own metrics rows, and publishes them with its pushes (remote/publish.ts): a landing may have no row here yet. */
  readonly rowsPerDrainer = true;

  /** A queue in a remote takes anyone's changes. */
  defaultSandboxMode(): 'auto' | 'required' {
    return 'required';
  }

  targetRef(target: string): string {
    return `refs/remotes/${this.queue.remote}/${target}`;
  }

  keptIn(remote: string): boolean {
    return this.queue.remote === remote;
  }

  async describe(): Promise<QueueView> {
    const found = await this.drainerLease();
    const lease = found?.lease;
    return {
      remote: this.queue.remote,
      drainer:
        found && lease ? { holder: lease.holder, host: lease.host, pid: lease.pid, epoch: lease.epoch, released: lease.released, commit: found.commit } : null,
    };
  }

  /** A held lease (a dead holder's counts until it is taken over), or this clone's own drain lock. */
  async drainerRunning(): Promise<boolean> {
    const { drainer } = await this.describe();
    return drainer ? !drainer.released : this.cache.drainerAlive();
  }

  /**
   * One atomic push moves the target (lease: the train's base), the drainer's lease and the
   * landed members' records, or nothing moves (raced: the queue was fetched). After it went
   * through, the clone's view of the target moves with it.
   */
  async land(landing: TrainLanding): Promise<LandingResult> {
    const target = { ref: branchRef(landing.target), to: landing.commit, expect: landing.base };
    try {
      await this.transact(() => landing.recordLanded(), { retry: false, extra: [target] });
    } catch (error) {
      if (!(error instanceof QueueRaced)) throw error;
      return { kind: 'raced' };
    }
    await this.noteTargetMoved(landing.target, landing.commit);
    return { kind: 'pushed' };
  }

  /** `land gc`: a fresh fetch, then one atomic push deleting the refs, then the cache's copies (remote/prune.ts). */
  prune(request: PruneRequest): Promise<PruneResult> {
    return this.cache.withQueueLock(async () => {
      await this.fetcher.fetch();
      await this.txns.materialize();
      const { cache, files, published, fetcher, queue } = this;
      return pruneRemote({ cache, files, published, refs: fetcher.refs, queue, request });
    });
  }

  /** The lease as last fetched: who drains this queue (null: nobody ever did). */
  private async drainerLease(): Promise<{ lease: Lease | null; commit: string } | null> {
    const oid = this.fetcher.refs.lease;
    return oid ? { lease: await this.lease.read(oid), commit: oid } : null;
  }

  /** After a landing went through: the clone's view of the target moves with it (no fetch). */
  private async noteTargetMoved(target: string, commit: string): Promise<void> {
    // Only a view: if other git processes keep it locked, the next fetch brings it, and a train
    // built on the old view meanwhile loses its landing push's lease and is rebuilt.
    await setLocalRef(this.queue.cwd, this.targetRef(target), commit).catch((error: unknown) => {
      if (!(error instanceof LocalRefsBusy)) throw error;
    });
  }

  // ---- fetching, the transaction (remote/fetcher.ts, remote/transactions.ts) -------------------

  /** Fetches, then brings the cache up to the remote's records. */
  async refresh(opts: RefreshOptions = {}): Promise<void> {
    await this.fetcher.fetchRidingOutage(opts.shouldStop ?? (() => false), () => this.lease.held() !== null);
    await this.cache.withQueueLock(() => this.txns.materialize());
  }

  /** Every hold of the queue lock is a transaction, its changes pushed when it ends; a refused push is fetched and run again. */
  withQueueLock<T>(fn: () => Promise<T> | T): Promise<T> {
    return this.transact(fn, { retry: true });
  }

  /** A change of this drainer's own bookkeeping: made in the cache only, pushed with the job's next shared change. */
  withUnsharedQueueLock<T>(fn: () => Promise<T> | T): Promise<T> {
    return this.cache.withQueueLock(() => {
      this.txns.takeBackInflight();
      return fn();
    });
  }

  /** Runs `fn` under the queue lock and pushes what it changed (remote/transactions.ts). */
  transact<T>(fn: () => Promise<T> | T, opts: TransactOptions): Promise<T> {
    return this.txns.transact(fn, opts);
  }

  // ---- shared writes: made in the cache and recorded in the transaction (pushed when it ends) ----

  writeJob(job: JobRecord): void {
    const txn = this.txns.current;
    if (txn && !txn.before.has(job.id)) txn.before.set(job.id, this.readJobQuietly(job.id));
    this.cache.writeJob(job);
    txn?.after.set(job.id, job);
  }

  appendJournal(entry: JournalLine): number {
    const offset = this.cache.appendJournal(entry);
    const txn = this.txns.current;
    if (txn) {
      txn.journalStart ??= offset;
      txn.entries.push(entry);
    }
    return offset;
  }

  writeIndex(index: ActiveIndex): boolean {
    const txn = this.txns.current;
    if (txn && !txn.index.saved) txn.index = { saved: true, value: this.cache.readIndex() };
    return this.cache.writeIndex(index);
  }

  writeBranchJobs(branch: string, ids: readonly string[]): boolean {
    this.noteBranchBefore(branch);
    return this.cache.writeBranchJobs(branch, ids);
  }

  addBranchJobs(branch: string, ids: readonly string[]): boolean {
    this.noteBranchBefore(branch);
    return this.cache.addBranchJobs(branch, ids);
  }

  /** The branch's list as it was before the transaction's first change of it (what a rollback writes back). */
  private noteBranchBefore(branch: string): void {
    const txn = this.txns.current;
    if (txn && !txn.branches.has(branch)) txn.branches.set(branch, this.cache.branchJobIds(branch));
  }

  private readJobQuietly(id: string): JobRecord | null {
    try {
      return this.cache.readJob(id);
    } catch {
      return null;
    }
  }

  // ---- the drainer's own writes of a transaction: done in the cache once its push went through ----

  appendMetric(row: WrittenMetricsRow): void {
    const txn = this.txns.current;
    if (txn) {
      txn.local.push(() => this.cache.appendMetric(row));
      txn.rows.push(row);
    } else this.cache.appendMetric(row);
  }

  writeWindow(state: WindowState): void {
    const txn = this.txns.current;
    if (txn) txn.local.push(() => this.cache.writeWindow(state));
    else this.cache.writeWindow(state);
  }

  // ---- the lease, waiting ---------------------------------------------------------------------

  async acquireDrainLock(opts: { wait: boolean; onWaiting?: (holder: DrainHolder | null) => void; shouldStop?: () => boolean }): Promise<DrainLease> {
    const local = await this.cache.acquireDrainLock(opts);
    let takeover: LeaseTakeover | null;
    try {
      takeover = await this.lease.take(opts);
    } catch (error) {
      await local.release();
      throw error;
    }
    return {
      holder: local.holder,
      compromised: () => this.lease.lost() ?? local.compromised(),
      holds: () => this.lease.lost() === null && local.holds(),
      release: async () => {
        // The rows not yet published ride the release push (under the cache's lock: remote.json moves).
        await this.cache.withQueueLock(() => this.lease.release(() => this.txns.publishRest())).catch(() => this.lease.release());
        await local.release();
      },
      ...(takeover ? { takeover: takeoverText(this.queue.remote, takeover) } : {}),
    };
  }

  /** The records change only when the remote's do: polled every `pollSeconds`. */
  async waitForChange(opts: WaitForChangeOptions): Promise<WaitOutcome> {
    const started = Date.now();
    for (;;) {
      if (opts.signal?.aborted) return { kind: 'aborted' };
      // A change the last fetch brought wins over the deadline it reached (`--idle-exit` must not
      // exit with a submission in hand).
      if (this.jobsVersion() !== opts.since) return { kind: 'changed', by: 'poll' };
      if (opts.timeoutMs != null && Date.now() - started >= opts.timeoutMs) return { kind: 'timeout' };
      // Never past the caller's deadline: a `--timeout` shorter than pollSeconds ends on time.
      const left = opts.timeoutMs == null ? Infinity : opts.timeoutMs - (Date.now() - started);
      await sleepUnless(Math.min(this.queue.pollSeconds * 1000, left), opts.signal);
      if (opts.signal?.aborted) return { kind: 'aborted' };
      // A drainer holding the lease rides out an outage in refresh, and gives up with its error.
      await this.refresh({ shouldStop: () => opts.signal?.aborted === true }).catch((error: unknown) => {
        if (this.lease.held() !== null) throw error;
        process.stderr.write(`land: warning: ${(remoteError(error) as Error).message}; trying again\n`);
      });
    }
  }

  // ---- reads of the history: this clone's own, and what the other drainers published ---------------

  readMetrics(): JsonLines<Row> {
    const own = this.cache.readMetrics();
    return { ...own, rows: byTime([...own.rows, ...this.published.readRows().rows]) };
  }

  readMetricsTail(enough: (rows: Row[]) => boolean): Row[] {
    return byTime([...this.cache.readMetricsTail(enough), ...this.published.readRowsTail(enough)]);
  }

  readMetricsMatching(needles: readonly string[]): { rows: Row[]; badLines: number[] } {
    const own = this.cache.readMetricsMatching(needles);
    return { ...own, rows: byTime([...own.rows, ...this.published.readRowsMatching(needles)]) };
  }

  readMetricsMatchingFrom(needles: readonly string[]): { rows: SourcedRow[]; badLines: number[] } {
    const own = this.cache.readMetricsMatching(needles);
    const rows = [...own.rows.map((row) => ({ row, drainer: null })), ...this.published.readRowsMatchingFrom(needles)];
    return { ...own, rows: byTimeOf(rows, (sourced) => sourced.row) };
  }

  /** This clone's own rows: reconcile and gc decide from these, never from published ones. */
  readOwnMetrics(): JsonLines<Row> {
    return this.cache.readMetrics();
  }

  readOwnMetricsMatching(needles: readonly string[]): { rows: Row[]; badLines: number[] } {
    return this.cache.readMetricsMatching(needles);
  }

  /** What any clone's `land gc` kept of the jobs it pruned, as fetched from refs/land/pruned (remote/prune.ts). */
  readPrunedJobs(): JobRecord[] {
    return this.published.readPruned();
  }

  /** A train's log: this clone's own when its drainer ran the train, else the published one. */
  hasOwnLog(id: string): boolean {
    return this.cache.hasLog(id);
  }

  hasLog(id: string): boolean {
    return this.cache.hasLog(id) || this.published.hasLog(id);
  }

  readLogFrom(id: string, offset = 0): TextSlice {
    return this.cache.hasLog(id) || !this.published.hasLog(id) ? this.cache.readLogFrom(id, offset) : this.published.readLogFrom(id, offset);
  }

  scanLog(id: string, onLine: (line: string) => void): boolean {
    return this.cache.scanLog(id, onLine) || this.published.scanLog(id, onLine);
  }

  /** A train id no drainer used: ids another drainer published are skipped (its train's refs are its). */
  claimTrainId(batchId: string): string {
    const published = this.files.readState().published;
    for (;;) {
      const id = this.cache.claimTrainId(batchId);
      if (!this.published.hasLog(id) && published.trains[id] === undefined && published.logs[id] === undefined) return id;
    }
  }

  // ---- reads: the cache's -------------------------------------------------------------------------

  ensure = (): void => this.cache.ensure();
  stateFolderVanished = (): boolean => this.cache.stateFolderVanished();
  /** The cache's records are always fsynced: the remote's refs rebuild them, not this clone's journal. */
  unsyncedWrites = (): UnsyncedWrites | null => null;
  removeStaleTempFiles = (): string[] => this.cache.removeStaleTempFiles();
  readJob = (id: string): JobRecord | null => this.cache.readJob(id);
  jobExists = (id: string): boolean => this.cache.jobExists(id);
  /** The seq ref's last id as fetched: a clone that never saw a job (pruned since) still allocates after it. */
  lastIdGiven = (): string | null => this.files.readState().seqLast;
  readJobOrProblem = (id: string): JobRead | null => this.cache.readJobOrProblem(id);
  listJobs = (opts: { check?: 'schema' | 'shape' } = {}): JobListing => this.cache.listJobs(opts);
  jobFileIds = (): string[] => this.cache.jobFileIds();
  jobsVersion = (): string => this.cache.jobsVersion();
  hasJournal = (): boolean => this.cache.hasJournal();
  journaledJobIds = (start = 0): string[] => this.cache.journaledJobIds(start);
  journalMark = (end?: number): { size: number; tail: string | null } => this.cache.journalMark(end);
  readJournal = (): JsonLines<JournalEntry> => this.cache.readJournal();
  readJournalOf = (id: string): { entries: JournalEntry[]; badLines: number[] } => this.cache.readJournalOf(id);
  scanJournal = (marker: string): JournalEntry[] => this.cache.scanJournal(marker);
  readJournalOfJobs = (ids: readonly string[]): Map<string, JournalEntry[]> => this.cache.readJournalOfJobs(ids);
  readIndex = (): ActiveIndex | null => this.cache.readIndex();
  hasBranchLists = (): boolean => this.cache.hasBranchLists();
  branchJobIds = (branch: string): string[] | null => this.cache.branchJobIds(branch);
  getVerdict = (tree: string, gatesHash: string): VerdictRecord | null => this.cache.getVerdict(tree, gatesHash);
  readVerdict = (tree: string, gatesHash: string): VerdictRecord | null => this.cache.readVerdict(tree, gatesHash);
  listVerdicts = (): VerdictRecord[] => this.cache.listVerdicts();
  readProof = (tree: string): ProofRead => this.cache.readProof(tree);
  readProofTreeOfTip = (tip: string): string | null => this.cache.readProofTreeOfTip(tip);
  readWindow = (): WindowState | null => this.cache.readWindow();
  readGatePasses = (commit: string): Record<string, string> | null => this.cache.readGatePasses(commit);
  listTrainDirs = (): string[] => this.cache.listTrainDirs();
  drainHolder = (): DrainHolder | null => this.cache.drainHolder();
  drainerAlive = (): boolean => this.cache.drainerAlive();
  readToken = (): TokenRecord | null => this.cache.readToken();
  tokenFile = (): string => this.cache.tokenFile();
  readProtectHook = (): ProtectHookRead => this.cache.readProtectHook();

  // ---- writes that stay in this clone (never pushed): caches, logs, the drainer's own files ----

  /** Under the lock, after a record write failed for lack of space: the cache's line goes (see LocalStore). */
  takeBackJournal = (offset: number): void => this.cache.takeBackJournal(offset);
  removeIndex = (): void => this.cache.removeIndex();
  putVerdict = (record: VerdictRecord): void => this.cache.putVerdict(record);
  removeVerdict = (tree: string, gatesHash: string): boolean => this.cache.removeVerdict(tree, gatesHash);
  writeProof = (proof: Proof): void => this.cache.writeProof(proof);
  writeProofTreeOfTip = (tip: string, tree: string): void => this.cache.writeProofTreeOfTip(tip, tree);
  writeGatePasses = (commit: string, passes: Record<string, string>): void => this.cache.writeGatePasses(commit, passes);
  logPath = (id: string): string => (!this.cache.hasLog(id) && this.published.hasLog(id) ? this.published.logFile(id) : this.cache.logPath(id));
  freshLogId = (id: string): string => this.cache.freshLogId(id);
  trainDir = (id: string): string => this.cache.trainDir(id);
  reopenTrainDir = (dir: string): void => this.cache.reopenTrainDir(dir);
  removeTrainDir = (dir: string): boolean => this.cache.removeTrainDir(dir);
  writeToken = (): string => this.cache.writeToken();
  clearToken = (token?: string): void => this.cache.clearToken(token);
  writePublishState = (state: Record<string, unknown>): void => this.cache.writePublishState(state);
  writeProtectHook = (hook: ProtectHook): void => this.cache.writeProtectHook(hook);
  readExecutorHealth = (): ExecutorHealthFile | null => this.cache.readExecutorHealth();
  writeExecutorHealth = (health: ExecutorHealthFile): void => this.cache.writeExecutorHealth(health);
  clearProtectHook = (): void => this.cache.clearProtectHook();
}
