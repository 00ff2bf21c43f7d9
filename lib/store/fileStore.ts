// The file-backed store: every read and write of the state folder goes through here. The engine
// and the queue call these methods and never build a path themselves, so a git-ref store can
// later implement the same interface.
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import type { z } from 'zod';
import { LandError } from '../errors.js';
import { branchRef } from '../git/revParse.js';
import type { QueueRemote } from './remoteLayout.js';
import type { LandingPush, QueueView } from './queueKind.js';
import { ensureDir, removeStaleTempFiles, TEMP_MARK, writeCacheFile, writeFileAtomic, writeJsonAtomic } from './atomic.js';
import { activeIndexSchema, branchJobsSchema, branchKey, JOURNAL_TAIL_BYTES, type ActiveIndex } from './activeIndex.js';
import { appendJsonLine, readJsonLines, truncateFile, type JsonLines } from './jsonl.js';
import { readFrom, scanLines, scanLinesContaining, type TextSlice } from './scan.js';
import { acquireDrainLock, readDrainHolder, withFileLock, type DrainLease } from './lock.js';
import { formatTokenRecord, newToken, parseTokenRecord, processStart, recordProcessAlive, tokenHash, type TokenRecord } from './landingToken.js';
import { asCountedJob } from './formats/jobShape.js';
import { StatePaths, assertSafeId } from './paths.js';
import { jobsFolderVersion, waitForJobsChange, type WaitForChangeOptions, type WaitOutcome } from './watch.js';
import {
  gatePassesSchema,
  isRecord,
  jobRecordSchema,
  journalEntrySchema,
  parseProof,
  proofOfTipSchema,
  proofSchema,
  protectHookSchema,
  verdictSchema,
  windowStateSchema,
  type DrainHolder,
  type JobRecord,
  type JournalEntry,
  type JournalLine,
  type Proof,
  type ProofRead,
  type ProtectHook,
  type VerdictRecord,
  type WindowState,
  type WrittenMetricsRow,
} from './formats/index.js';

export interface RefreshOptions {
  shouldStop?: () => boolean;
}

/** Cache entries and the landing token: atomic, not fsynced (lib/store/atomic.ts AtomicWrite). */
const CACHE = { durable: false } as const;

export interface CorruptRecord {
  file: string;
  problem: string;
}

/** One record read: the job, or what is wrong with its file. */
export type JobRead = { ok: true; job: JobRecord } | { ok: false; corrupt: CorruptRecord };

export interface JobListing {
  jobs: JobRecord[];
  corrupt: CorruptRecord[];
}

function describeZod(error: z.ZodError): string {
  const first = error.issues[0];
  if (!first) return 'invalid record';
  const where = first.path.length ? first.path.join('.') : '(root)';
  return `${where}: ${first.message}`;
}

/** A JSON line that holds an object (a metrics row; its fields are checked by its reader). */
function objectLine(raw: unknown): { success: true; data: Record<string, unknown> } | { success: false } {
  return isRecord(raw) ? { success: true, data: raw } : { success: false };
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

function parseWith<T>(schema: z.ZodType<T>, text: string): Parsed<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `not valid JSON (${(error as Error).message})` };
  }
  const result = schema.safeParse(raw);
  return result.success ? { ok: true, value: result.data } : { ok: false, problem: describeZod(result.error) };
}

/** A record checked only for the shape counting readers need (lib/store/formats/jobShape.ts). */
function parseShape(text: string): Parsed<JobRecord> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `not valid JSON (${(error as Error).message})` };
  }
  const counted = asCountedJob(raw);
  return counted.ok ? { ok: true, value: counted.job } : counted;
}

/** One JSON line through a safeParse-like check; null when it is not JSON or not of the shape. */
function parseJsonLine<T>(line: string, check: (raw: unknown) => { success: boolean; data?: T }): T | null {
  if (line.trim() === '') return null;
  try {
    const result = check(JSON.parse(line));
    return result.success ? (result.data as T) : null;
  } catch {
    return null;
  }
}

/** How often a long-lived holder of the queue lock (a drain) sweeps jobs/ for stale temp files. */
const JOBS_SWEEP_MS = 60_000;

export class FileStore {
  readonly paths: StatePaths;

  constructor(readonly root: string) {
    this.paths = new StatePaths(root);
  }

  /** The remote that holds this queue (docs/remote.md); null for a clone's own queue. */
  get queueRemote(): QueueRemote | null {
    return null;
  }

  /** Where the queue is kept and who drains it (`land status`): this clone's own, no lease. */
  async queueView(): Promise<QueueView> {
    return { remote: null, drainer: null };
  }

  /** How a landing is pushed with the queue's changes; null: a compare-and-swap of the local ref lands it. */
  landingPush(): LandingPush | null {
    return null;
  }

  /**
   * The sandbox mode when the policy names none (docs/sandbox.md): a clone's own queue runs only
   * its own developers' changes (auto); a queue in a remote takes anyone's (required).
   */
  defaultSandboxMode(): 'auto' | 'required' {
    return 'auto';
  }

  /** The ref this clone reads the target from: the branch itself, or its remote-tracking ref for a remote queue. */
  targetRef(target: string): string {
    return branchRef(target);
  }

  /**
   * Brings the cache up to the queue's source (a remote queue fetches); nothing for a local queue.
   * `shouldStop`: a drainer riding out an outage of the remote stops trying when it holds.
   */
  async refresh(_opts: RefreshOptions = {}): Promise<void> {}

  /** Creates the state folder's layout (idempotent). */
  ensure(): void {
    for (const dir of [this.paths.jobsDir, this.paths.logsDir, this.paths.verdictsDir, this.paths.proofsDir, this.paths.locksDir]) {
      ensureDir(dir);
    }
  }

  /**
   * Whether the state folder was removed under a running process (`rm -rf .git/land` by a gate):
   * the jobs folder and the journal are both gone. (Other writers may have re-created parts of it
   * since, such as `locks/` or `logs/`.)
   */
  stateFolderVanished(): boolean {
    return !existsSync(this.paths.jobsDir) && !existsSync(this.paths.journal);
  }

  /** Removes the temp files killed writers left in every folder of the state (see removeStaleTempFiles). */
  removeStaleTempFiles(): string[] {
    const { paths } = this;
    const dirs = [paths.root, paths.jobsDir, paths.locksDir, paths.verdictsDir, paths.proofsDir, join(paths.proofsDir, 'tips'), paths.gatePassesDir];
    return dirs.flatMap((dir) => removeStaleTempFiles(dir).map((name) => join(dir, name)));
  }

  // ---- jobs -------------------------------------------------------------------------------

  /** One job; null when there is no such record; a corrupt record is a `corrupt` error. */
  readJob(id: string): JobRecord | null {
    const path = this.paths.job(id);
    const text = readText(path);
    if (text === null) return null;
    const parsed = parseWith(jobRecordSchema, text);
    if (!parsed.ok) throw new LandError('corrupt', `job record ${basename(path)} is corrupt: ${parsed.problem}`);
    return parsed.value;
  }

  jobExists(id: string): boolean {
    return existsSync(this.paths.job(id));
  }

  /** One job's record, or what is wrong with it (by file name, as listJobs reports it); null when there is none. */
  readJobOrProblem(id: string): JobRead | null {
    const name = `${assertSafeId(id)}.json`;
    const text = readText(this.paths.job(id));
    if (text === null) return null;
    const parsed = parseWith(jobRecordSchema, text);
    if (!parsed.ok) return { ok: false, corrupt: { file: name, problem: parsed.problem } };
    if (parsed.value.id !== id) return { ok: false, corrupt: { file: name, problem: `id ${parsed.value.id} does not match the file name` } };
    return { ok: true, job: parsed.value };
  }

  /**
   * Every job record; corrupt ones are returned by file name, never thrown. Reads every record ever
   * written: for `land status --all`, `land reconcile` and the rebuild of the index of active jobs;
   * everything else reads the index (lib/queue/activeSet.ts). `check: 'shape'`: only the shape
   * the counting readers need (lib/store/formats/jobShape.ts; `land stats` over 10,000 records), not the schema.
   */
  listJobs(opts: { check?: 'schema' | 'shape' } = {}): JobListing {
    let names: string[];
    try {
      names = readdirSync(this.paths.jobsDir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { jobs: [], corrupt: [] };
      throw error;
    }
    const jobs: JobRecord[] = [];
    const corrupt: CorruptRecord[] = [];
    const dir = this.paths.jobsDir; // a getter that joins: once, not per record
    for (const name of names.sort()) {
      if (!name.endsWith('.json') || name.includes(TEMP_MARK)) continue;
      const text = readText(`${dir}/${name}`);
      if (text === null) continue;
      const parsed = opts.check === 'shape' ? parseShape(text) : parseWith(jobRecordSchema, text);
      if (!parsed.ok) corrupt.push({ file: name, problem: parsed.problem });
      else if (`${parsed.value.id}.json` !== name) corrupt.push({ file: name, problem: `id ${parsed.value.id} does not match the file name` });
      else jobs.push(parsed.value);
    }
    return { jobs, corrupt };
  }

  /** Ids of job files (parsed or not), for id allocation. */
  jobFileIds(): string[] {
    try {
      return readdirSync(this.paths.jobsDir)
        .filter((name) => name.endsWith('.json') && !name.includes(TEMP_MARK))
        .map((name) => name.slice(0, -'.json'.length));
    } catch {
      return [];
    }
  }

  /** A token that changes whenever a job record is added, rewritten or removed. */
  jobsVersion(): string {
    return jobsFolderVersion(this.paths.jobsDir);
  }

  /**
   * Waits until the job records differ from `since` (fs.watch on the jobs folder, with a poll
   * every 2 s as the fallback), the timeout passes or the signal aborts.
   */
  waitForChange(opts: WaitForChangeOptions): Promise<WaitOutcome> {
    return waitForJobsChange(this.paths.jobsDir, opts);
  }

  /** Writes a record. Only lib/queue's transition functions call this, after journaling. */
  writeJob(job: JobRecord): void {
    assertSafeId(job.id);
    writeJsonAtomic(this.paths.job(job.id), job);
  }

  // ---- journal ------------------------------------------------------------------------------

  /** Appends a journal line; returns where it starts, for takeBackJournal. */
  appendJournal(entry: JournalLine): number {
    return this.replayJournal(entry);
  }

  /** Appends a line as it was read elsewhere (a remote queue's lines, written by any version). */
  replayJournal(entry: JournalEntry): number {
    return appendJsonLine(this.paths.journal, entry, { journal: true });
  }

  /**
   * Takes back the journal's last line, appended at `offset`, when the record write it announced
   * failed for lack of space: the journal and the records then agree that nothing happened. Only
   * under the queue lock (no other line can follow it). Best effort: a crash here leaves the line,
   * which recovery reads as a change whose record write never happened.
   */
  takeBackJournal(offset: number): void {
    try {
      truncateFile(this.paths.journal, offset);
    } catch {
      // the line stays: as after a crash between the two writes
    }
  }

  /** Whether the journal exists (a job was ever submitted here). */
  hasJournal(): boolean {
    return existsSync(this.paths.journal);
  }

  /**
   * Every job id the journal names from byte `start` on (default: all of it), in order of first
   * mention (one pass; lines are not parsed whole).
   */
  journaledJobIds(start = 0): string[] {
    const ids = new Set<string>();
    scanLines(
      this.paths.journal,
      (line) => line.includes('"job":"'),
      (line) => {
        const id = /"job":"([a-z0-9-]{1,100})"/.exec(line)?.[1];
        if (id) ids.add(id);
      },
      start,
    );
    return [...ids];
  }

  /**
   * The journal's size, and the hex of its last JOURNAL_TAIL_BYTES bytes before `end` (default:
   * its end); `tail` is null when the journal is shorter than `end`. One open, one small read.
   */
  journalMark(end?: number): { size: number; tail: string | null } {
    let fd: number;
    try {
      fd = openSync(this.paths.journal, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return { size: 0, tail: (end ?? 0) === 0 ? '' : null };
    }
    try {
      const size = fstatSync(fd).size;
      const upTo = end ?? size;
      if (upTo > size) return { size, tail: null };
      const from = Math.max(0, upTo - JOURNAL_TAIL_BYTES);
      const bytes = Buffer.alloc(upTo - from);
      const read = readSync(fd, bytes, 0, bytes.length, from);
      return { size, tail: bytes.subarray(0, read).toString('hex') };
    } finally {
      closeSync(fd);
    }
  }

  readJournal(): JsonLines<JournalEntry> {
    return readJsonLines(this.paths.journal, (raw) => {
      const parsed = journalEntrySchema.safeParse(raw);
      return parsed.success ? parsed.data : null;
    });
  }

  /**
   * The journal lines of one job, in order, read in one pass over the file without holding it
   * whole (only lines that mention the id are parsed). `badLines` are the numbers of lines that
   * mention the id but do not parse: a torn or corrupt line, skipped.
   */
  readJournalOf(id: string): { entries: JournalEntry[]; badLines: number[] } {
    assertSafeId(id);
    const entries: JournalEntry[] = [];
    const badLines: number[] = [];
    scanLines(
      this.paths.journal,
      (line) => line.includes(id),
      (line, number) => {
        const entry = parseJsonLine(line, (raw) => journalEntrySchema.safeParse(raw));
        if (entry === null) badLines.push(number);
        else if (entry.job === id) entries.push(entry);
      },
    );
    return { entries, badLines };
  }

  /**
   * The journal lines that contain `marker`, in file order, in one pass without holding the file
   * whole; only those lines are decoded and parsed (`land stats` finds abandoned speculative
   * trains this way in a journal of 10,000 jobs).
   */
  scanJournal(marker: string): JournalEntry[] {
    const entries: JournalEntry[] = [];
    scanLinesContaining(this.paths.journal, marker, (line) => {
      const entry = parseJsonLine(line, (raw) => journalEntrySchema.safeParse(raw));
      if (entry) entries.push(entry);
    });
    return entries;
  }

  /** The journal lines of several jobs (by id, each oldest first), in one pass over the file (land reconcile's page). */
  readJournalOfJobs(ids: readonly string[]): Map<string, JournalEntry[]> {
    const wanted = new Set(ids);
    const byJob = new Map<string, JournalEntry[]>();
    if (!wanted.size) return byJob;
    scanLines(
      this.paths.journal,
      (line) => ids.some((id) => line.includes(id)),
      (line) => {
        const entry = parseJsonLine(line, (raw) => journalEntrySchema.safeParse(raw));
        if (!entry?.job || !wanted.has(entry.job)) return;
        const list = byJob.get(entry.job);
        if (list) list.push(entry);
        else byJob.set(entry.job, [entry]);
      },
    );
    return byJob;
  }

  // ---- the index of active jobs, the branches' job lists (caches: lib/store/activeIndex.ts) ----

  /** The index of active jobs; null when it is missing or unreadable (the caller rebuilds it). */
  readIndex(): ActiveIndex | null {
    let text: string | null;
    try {
      text = readText(this.paths.index);
    } catch {
      return null;
    }
    if (text === null) return null;
    const parsed = parseWith(activeIndexSchema, text);
    return parsed.ok ? parsed.value : null;
  }

  /** Writes the index; false when it could not be (it stays behind the journal and is caught up later). */
  writeIndex(index: ActiveIndex): boolean {
    try {
      writeCacheFile(this.paths.index, `${JSON.stringify(index)}\n`);
      return true;
    } catch {
      return false;
    }
  }

  removeIndex(): void {
    rmSync(this.paths.index, { force: true });
  }

  /** Whether the branches' job lists exist (the folder: removed by hand, they are rebuilt). */
  hasBranchLists(): boolean {
    return existsSync(this.paths.branchesDir);
  }

  /** The ids of every job of `branch` ([] when it has none); null when its list is unreadable. */
  branchJobIds(branch: string): string[] | null {
    let text: string | null;
    try {
      text = readText(this.paths.branchJobs(branchKey(branch)));
    } catch {
      return null;
    }
    if (text === null) return [];
    const parsed = parseWith(branchJobsSchema, text);
    return parsed.ok && parsed.value.branch === branch ? parsed.value.jobs : null;
  }

  /** Writes a branch's job list; false when it could not be. */
  writeBranchJobs(branch: string, ids: readonly string[]): boolean {
    try {
      writeCacheFile(this.paths.branchJobs(branchKey(branch)), `${JSON.stringify({ branch, jobs: ids })}\n`);
      return true;
    } catch {
      return false;
    }
  }

  /** Adds job ids to a branch's list (an unreadable list is rewritten); false when it could not be written. */
  addBranchJobs(branch: string, ids: readonly string[]): boolean {
    const known = this.branchJobIds(branch) ?? [];
    const added = ids.filter((id) => !known.includes(id));
    return added.length ? this.writeBranchJobs(branch, [...known, ...added]) : true;
  }

  // ---- locks ---------------------------------------------------------------------------------

  /** When this store last swept jobs/ for stale temp files (see withQueueLock). */
  private jobsSweptAt = Number.NEGATIVE_INFINITY;

  /**
   * A short critical section over the queue. Stale temp files left by a killed writer are removed
   * from locks/ every time, and from jobs/ at this process's first hold and then at most once a
   * minute: listing a jobs folder of 10,000 records on every change of a drain would make each
   * train cost more the more jobs have finished (readers skip temp files anyway).
   */
  withQueueLock<T>(fn: () => Promise<T> | T): Promise<T> {
    ensureDir(this.paths.locksDir);
    return withFileLock(
      this.paths.queueLock,
      () => {
        if (Date.now() - this.jobsSweptAt >= JOBS_SWEEP_MS) {
          removeStaleTempFiles(this.paths.jobsDir);
          this.jobsSweptAt = Date.now();
        }
        removeStaleTempFiles(this.paths.locksDir);
        return fn();
      },
      this.queueLockRetries(),
    );
  }

  /** How long a change waits for the queue lock, in waits of at most 100 ms (about a minute here). */
  protected queueLockRetries(): number {
    return 600;
  }

  /**
   * The queue lock for a change only this drainer needs (its bookkeeping, such as a fast-path
   * check): the same lock here; a queue kept in a remote does not push such a change.
   */
  withUnsharedQueueLock<T>(fn: () => Promise<T> | T): Promise<T> {
    return this.withQueueLock(fn);
  }

  acquireDrainLock(opts: { wait: boolean; onWaiting?: (holder: DrainHolder | null) => void; shouldStop?: () => boolean }): Promise<DrainLease> {
    return acquireDrainLock(this.paths, opts);
  }

  drainHolder(): DrainHolder | null {
    return readDrainHolder(this.paths);
  }

  /** Whether a drainer holds the queue now: a holder on this host must be a live process. */
  drainerAlive(): boolean {
    const holder = readDrainHolder(this.paths);
    if (!holder) return false;
    if (holder.host !== hostname()) return true; // trusted until its lock goes stale
    return recordProcessAlive(holder);
  }

  // ---- window --------------------------------------------------------------------------------

  /** The persisted window, or null when none was written yet. A corrupt file is an error. */
  readWindow(): WindowState | null {
    const text = readText(this.paths.window);
    if (text === null) return null;
    const parsed = parseWith(windowStateSchema, text);
    if (!parsed.ok) throw new LandError('corrupt', `window.json is corrupt: ${parsed.problem}`, { hint: 'run `land window --reset`' });
    return parsed.value;
  }

  writeWindow(state: WindowState): void {
    writeJsonAtomic(this.paths.window, state);
  }

  // ---- verdict cache ---------------------------------------------------------------------------

  getVerdict(tree: string, gatesHash: string): VerdictRecord | null {
    const text = readText(this.paths.verdict(tree, gatesHash));
    if (text === null) return null;
    const parsed = parseWith(verdictSchema, text);
    return parsed.ok ? parsed.value : null; // a corrupt cache entry is a miss: the gate runs again
  }

  putVerdict(record: VerdictRecord): void {
    writeJsonAtomic(this.paths.verdict(record.tree, record.gatesHash), record, CACHE);
  }

  // ---- proofs (lib/store/formats/proof.ts) ---------------------------------------------------

  /** The proof of `tree`; 'corrupt' when the file exists but is not a proof of that tree. */
  readProof(tree: string): ProofRead {
    const text = readText(this.paths.proof(tree));
    if (text === null) return null;
    try {
      return parseProof(JSON.parse(text), tree);
    } catch {
      return 'corrupt';
    }
  }

  writeProof(proof: Proof): void {
    writeJsonAtomic(this.paths.proof(proof.tree), proofSchema.parse(proof), CACHE);
  }

  /** The tree of the latest proof made for `tip`, or null. */
  readProofTreeOfTip(tip: string): string | null {
    const text = readText(this.paths.proofOfTip(tip));
    if (text === null) return null;
    try {
      const parsed = proofOfTipSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data.tree : null;
    } catch {
      return null;
    }
  }

  writeProofTreeOfTip(tip: string, tree: string): void {
    writeJsonAtomic(this.paths.proofOfTip(tip), { tip, tree }, CACHE);
  }

  // ---- metrics, logs, trains, token ------------------------------------------------------------

  appendMetric(row: WrittenMetricsRow): void {
    appendJsonLine(this.paths.metrics, row);
  }

  /** Every line of metrics.jsonl that holds an object; readers check its fields (lib/store/formats/metricsRow.ts). */
  readMetrics(): JsonLines<Record<string, unknown>> {
    return readJsonLines(this.paths.metrics, (raw) => (isRecord(raw) ? raw : null));
  }

  /**
   * The last rows of metrics.jsonl (in file order), read from its end in growing chunks until
   * `enough(rows)` holds or the start is reached: `land status` needs the latest trains only.
   */
  readMetricsTail(enough: (rows: Record<string, unknown>[]) => boolean): Record<string, unknown>[] {
    const size = (() => {
      try {
        return statSync(this.paths.metrics).size;
      } catch {
        return 0;
      }
    })();
    for (let span = 1 << 16; ; span *= 4) {
      const from = Math.max(0, size - span);
      const lines = readFrom(this.paths.metrics, from, size - from).text.split('\n');
      if (from > 0) lines.shift(); // cut mid-line
      const rows = lines.flatMap((line) => {
        const row = parseJsonLine(line, objectLine);
        return row ? [row] : [];
      });
      if (from === 0 || enough(rows)) return rows;
    }
  }

  /**
   * Metrics rows whose line contains one of `needles` (train or batch ids, job ids), in file
   * order, read in one pass; the caller checks the fields it needs.
   */
  readMetricsMatching(needles: readonly string[]): { rows: Record<string, unknown>[]; badLines: number[] } {
    const rows: Record<string, unknown>[] = [];
    const badLines: number[] = [];
    if (!needles.length) return { rows, badLines };
    scanLines(
      this.paths.metrics,
      (line) => needles.some((needle) => line.includes(needle)),
      (line, number) => {
        const row = parseJsonLine(line, objectLine);
        if (row === null) badLines.push(number);
        else rows.push(row);
      },
    );
    return { rows, badLines };
  }

  /** Whether a train (or job) has a log file. */
  hasLog(id: string): boolean {
    return existsSync(this.paths.log(id));
  }

  /** A train's log from byte `offset` on (for printing it, or following it as it grows). */
  readLogFrom(id: string, offset = 0): TextSlice {
    return readFrom(this.paths.log(id), offset);
  }

  /** Every line of a train's log, read in one pass; false when there is no such log. */
  scanLog(id: string, onLine: (line: string) => void): boolean {
    if (!existsSync(this.paths.log(id))) return false;
    scanLines(
      this.paths.log(id),
      () => true,
      (line) => onLine(line),
    );
    return true;
  }

  /** The log file of a train or job (created empty on first use). */
  logPath(id: string): string {
    ensureDir(this.paths.logsDir);
    return this.paths.log(id);
  }

  /** `id`, or `id-2`, `id-3`... : the first that names no log yet (train ids are log names). */
  freshLogId(id: string): string {
    let candidate = id;
    for (let n = 2; existsSync(this.paths.log(candidate)); n += 1) candidate = `${id}-${n}`;
    return candidate;
  }

  /**
   * Claims the next train id of a batch, `<batch>-1`, `<batch>-2`, ..., by creating its log file
   * exclusively: every train has a log (a cached verdict says so in it), and two drainers can
   * never claim the same id.
   */
  claimTrainId(batchId: string): string {
    ensureDir(this.paths.logsDir);
    for (let n = 1; ; n += 1) {
      const id = `${batchId}-${n}`;
      try {
        closeSync(openSync(this.paths.log(id), 'wx'));
        return id;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
  }

  trainDir(id: string): string {
    ensureDir(this.paths.trainsDir);
    return this.paths.train(id);
  }

  listTrainDirs(): string[] {
    try {
      return readdirSync(this.paths.trainsDir).map((name) => `${this.paths.trainsDir}/${name}`);
    } catch {
      return [];
    }
  }

  removeTrainDir(dir: string): void {
    rmSync(dir, { recursive: true, force: true });
  }

  /** The token file's record (hash, pid, start time), or null when none (or unreadable). */
  readToken(): TokenRecord | null {
    return parseTokenRecord(readText(this.paths.token));
  }

  /**
   * Arms the protecting hook for one move of the target: a fresh token, of which only the hash
   * (with this process's pid and start time) is written. The token is returned, for the
   * environment of the one git process that moves the target; nothing else ever holds it.
   */
  writeToken(): string {
    const token = newToken();
    writeFileAtomic(this.paths.token, formatTokenRecord({ hash: tokenHash(token), pid: process.pid, start: processStart(process.pid) }), CACHE);
    return token;
  }

  /** Disarms: removes the token file when it still holds `token`'s hash (or, without a token, always). */
  clearToken(token?: string): void {
    if (token !== undefined && this.readToken()?.hash !== tokenHash(token)) return;
    rmSync(this.paths.token, { force: true });
  }

  writePublishState(state: Record<string, unknown>): void {
    writeJsonAtomic(this.paths.publishState, state);
  }

  /**
   * The record of land's protecting hook: none (not installed, or uninstalled), or what it was.
   * A record that does not parse is reported with its path, never taken for "not installed".
   */
  readProtectHook(): { kind: 'none' } | { kind: 'installed'; hook: ProtectHook } | { kind: 'corrupt'; path: string; problem: string } {
    const text = readText(this.paths.protectHook);
    if (text === null) return { kind: 'none' };
    const parsed = parseWith(protectHookSchema, text);
    return parsed.ok ? { kind: 'installed', hook: parsed.value } : { kind: 'corrupt', path: this.paths.protectHook, problem: parsed.problem };
  }

  writeProtectHook(hook: ProtectHook): void {
    writeJsonAtomic(this.paths.protectHook, hook);
  }

  clearProtectHook(): void {
    rmSync(this.paths.protectHook, { force: true });
  }

  // ---- per-gate PASS records (selective gates) --------------------------------------------------

  /** gate name → hash of that gate's definition, for each gate that passed on `commit`; null when none (or corrupt: a miss). */
  readGatePasses(commit: string): Record<string, string> | null {
    const text = readText(this.paths.gatePasses(commit));
    if (text === null) return null;
    const parsed = parseWith(gatePassesSchema, text);
    if (!parsed.ok || parsed.value.commit !== commit) return null; // a corrupt record is a miss: the gate runs
    return parsed.value.gates;
  }

  writeGatePasses(commit: string, passes: Record<string, string>): void {
    writeJsonAtomic(this.paths.gatePasses(commit), { commit, gates: passes }, CACHE);
  }

  /** The file holding the landing token's hash, which the protecting hook checks LAND_TOKEN against. */
  tokenFile(): string {
    return this.paths.token;
  }
}
