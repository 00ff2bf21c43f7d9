// A queue kept in a git remote (docs/remote.md). The remote's refs/land/* are the truth; this
// store is the file store of a cache folder (.git/land/remote/<remote>/) that mirrors them, so
// every reader works as with a local queue. Each hold of the queue lock is a transaction: the
// changes the holder makes (journal lines, records) are pushed to the remote in one atomic push
// with a lease on every ref it moves; a refused push takes the local changes back, fetches, and
// runs the holder again (or, for a landing, reports the lost race). A drainer's pushes also move
// its lease ref, so a drainer whose lease was taken over can change nothing.
import type { LandingPush, QueueView } from './queueKind.js';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LandError } from '../errors.js';
import { failpoint } from '../failpoint.js';
import {
  fetchRefs,
  listRefs,
  pushAtomic,
  RemoteUnreachable,
  setLocalRef,
  LocalRefsBusy,
  writeCommits,
  chainMessages,
  readBlobs,
  type NewCommit,
  type RefUpdate,
} from '../git/index.js';
import { writeCacheFile } from './atomic.js';

// The cache's own files (remote.json, inflight.json, lease-seen.json) are written without fsync:
// the remote holds the truth, a process killed mid-way leaves the page cache intact, and after a
// power loss a stale remote.json only costs a re-read of the records that moved.
const writeCacheJson = (path: string, value: unknown) => writeCacheFile(path, `${JSON.stringify(value)}\n`);
import { FileStore, type RefreshOptions } from './fileStore.js';
import { nextRetry, OutageNotice, unreachableReason } from './outage.js';
import type { DrainLease } from './lock.js';
import {
  emptyRemoteState,
  entriesOfMessage,
  inflightSchema,
  misfitWarning,
  parseQueueRefs,
  recordMessage,
  remoteRefs,
  remoteStateSchema,
  type Inflight,
  type Lease,
  type QueueRefs,
  type QueueRemote,
  type RemoteState,
} from './remoteLayout.js';
import { LeaseKeeper } from './remoteLease.js';
import {
  jobRecordSchema,
  TERMINAL_STATES,
  type DrainHolder,
  type JobRecord,
  type JournalEntry,
  type JournalLine,
  type WindowState,
  type WrittenMetricsRow,
} from './formats/index.js';
import type { ActiveIndex } from './activeIndex.js';
import type { WaitForChangeOptions, WaitOutcome } from './watch.js';

/** How many times a refused push of an ordinary change is fetched and tried again. */
const MAX_ATTEMPTS = 40;

interface Transaction {
  before: Map<string, JobRecord | null>;
  after: Map<string, JobRecord>;
  entries: JournalEntry[];
  journalStart: number | null;
  index: { saved: boolean; value: ActiveIndex | null };
  branches: Map<string, string[] | null>;
  /** Writes of this drainer's own files (metrics, window), done once the push went through. */
  local: (() => void)[];
}

export interface TransactOptions {
  /** Refs moved in the same push (a landing's target), with their leases. */
  extra?: readonly RefUpdate[];
  /** A refused push is fetched and the holder run again (true); false: the race is reported (QueueRaced). */
  retry?: boolean;
  /**
   * Push the lease even when nothing else changed (the heartbeat); a function is asked under the
   * lock, so a heartbeat that waited behind a push that renewed the lease pushes nothing.
   */
  renew?: boolean | (() => boolean);
}

/** A push that lost its race (a landing whose target or members moved): nothing moved anywhere. */
export class QueueRaced extends Error {
  constructor(readonly refs: readonly { ref: string; why: string }[]) {
    super(`the remote refused the push: ${refs.map((r) => `${r.ref} ${r.why}`).join('; ')}`);
    this.name = 'QueueRaced';
  }
}

export function remoteError(error: unknown): unknown {
  if (error instanceof LocalRefsBusy) {
    return new LandError('busy', error.message, {
      hint: 'nothing was changed; run the command again (if no git or land command is running in this clone, remove the .lock file git named)',
    });
  }
  if (error instanceof RemoteUnreachable) {
    return new LandError('remote', `the queue's remote ${error.remote} could not be reached: ${error.reason}`, {
      hint: 'nothing was changed; check the network and `git remote -v`, then run the command again',
      cause: error,
    });
  }
  return error;
}

function describeRefused(refs: readonly { ref: string; why: string }[]): string {
  return refs.map((r) => `${r.ref} ${r.why}`).join('; ');
}

/** A record read from a job ref's commit; null when it is not one. */
function parseRecord(text: string | null | undefined, id: string): JobRecord | null {
  try {
    const parsed = jobRecordSchema.safeParse(JSON.parse(text ?? 'null'));
    return parsed.success && parsed.data.id === id ? parsed.data : null;
  } catch {
    return null;
  }
}

function renewAsked(renew: TransactOptions['renew']): boolean {
  return typeof renew === 'function' ? renew() : Boolean(renew);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Sleeps up to `ms`, returning early once `stop()` holds. */
async function pauseUnless(ms: number, stop: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !stop()) await sleep(Math.min(100, deadline - Date.now()));
}

function sleepUnless(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export class RemoteStore extends FileStore {
  private refs: QueueRefs = { jobs: new Map(), heads: new Map(), seq: null, lease: null, seqIsCommit: false, leaseIsCommit: false, misfits: new Map() };
  /** Misfit job refs already warned about (id and object), each said once per process. */
  private readonly misfitsSaid = new Set<string>();
  private txn: Transaction | null = null;
  readonly lease: LeaseKeeper;
  /** When the remote last answered; what a drainer says about an outage (lib/store/outage.ts). */
  readonly outage: OutageNotice;

  constructor(
    root: string,
    readonly queue: QueueRemote,
  ) {
    super(root);
    this.outage = new OutageNotice(queue.remote, queue.leaseSeconds, (line) => process.stderr.write(line));
    this.lease = new LeaseKeeper(queue, {
      outage: this.outage,
      fetch: () => this.fetch(),
      leaseRef: () => this.refs.lease,
      leaseIsCommit: () => this.refs.leaseIsCommit,
      renew: (stillDue) => this.transact(() => undefined, { renew: stillDue, retry: false }),
      firstSeen: (oid) => this.leaseSeen(oid),
      noteSeen: (oid, at) => writeCacheJson(join(this.root, 'lease-seen.json'), { commit: oid, at }),
    });
  }

  override get queueRemote(): QueueRemote {
    return this.queue;
  }

  override defaultSandboxMode(): 'auto' | 'required' {
    return 'required';
  }

  override targetRef(target: string): string {
    return `refs/remotes/${this.queue.remote}/${target}`;
  }

  private get statePath(): string {
    return join(this.root, 'remote.json');
  }

  private readState(): RemoteState {
    if (!existsSync(this.statePath)) return emptyRemoteState();
    try {
      const parsed = remoteStateSchema.safeParse(JSON.parse(readFileSync(this.statePath, 'utf8')));
      // A damaged state file costs one full re-read of the records, nothing else.
      return parsed.success ? parsed.data : emptyRemoteState();
    } catch {
      return emptyRemoteState();
    }
  }

  private writeState(state: RemoteState): void {
    writeCacheJson(this.statePath, state);
  }

  /** When this clone first saw the lease at commit `oid` (lease-seen.json), by its own clock. */
  private leaseSeen(oid: string): number | null {
    try {
      const seen = JSON.parse(readFileSync(join(this.root, 'lease-seen.json'), 'utf8')) as { commit?: unknown; at?: unknown };
      return seen.commit === oid && typeof seen.at === 'number' && seen.at <= Date.now() ? seen.at : null;
    } catch {
      return null;
    }
  }

  private get inflightPath(): string {
    return join(this.root, 'inflight.json');
  }

  /** Before a push: how to take the cache back should this process die before it learns the push's fate. */
  private saveInflight(txn: Transaction, pushed: Record<string, string>): void {
    const inflight: Inflight = {
      version: 1,
      journalStart: txn.journalStart,
      before: Object.fromEntries(txn.before),
      index: txn.index,
      branches: Object.fromEntries(txn.branches),
      pushed,
    };
    writeCacheJson(this.inflightPath, inflight);
  }

  private clearInflight(): void {
    rmSync(this.inflightPath, { force: true });
  }

  /**
   * Under the queue lock: a transaction whose process died during its push (its inflight.json is
   * still there) is taken back from the cache, unless remote.json shows its push was recorded. The
   * remote's refs then say what happened: a push the remote took is fetched as any other change.
   */
  private takeBackInflight(): void {
    if (!existsSync(this.inflightPath)) return;
    let parsed: ReturnType<typeof inflightSchema.safeParse> | null = null;
    try {
      parsed = inflightSchema.safeParse(JSON.parse(readFileSync(this.inflightPath, 'utf8')));
    } catch {
      parsed = null; // half a file is not possible (atomic write); an unreadable one is dropped
    }
    const saved = parsed?.success ? parsed.data : null;
    const jobs = this.readState().jobs;
    const recorded = saved !== null && Object.entries(saved.pushed).some(([id, oid]) => jobs[id] === oid);
    if (saved && !recorded) {
      const journalSize = this.hasJournal() ? statSync(this.paths.journal).size : 0;
      this.rollback({
        before: new Map(Object.entries(saved.before)),
        after: new Map(),
        entries: [],
        journalStart: saved.journalStart !== null && saved.journalStart <= journalSize ? saved.journalStart : null,
        index: saved.index,
        branches: new Map(Object.entries(saved.branches)),
        local: [],
      });
    }
    this.clearInflight();
  }

  /** One fetch of the queue refs and the target; the refs it brought are kept for the next push. */
  async fetch(): Promise<void> {
    const { cwd, remote, target } = this.queue;
    const names = remoteRefs(remote);
    try {
      await fetchRefs(cwd, remote, [`+refs/land/*:${names.local}*`, `+refs/heads/${target}:${this.targetRef(target)}`]);
      this.outage.reached();
    } catch (error) {
      if (error instanceof RemoteUnreachable && /couldn't find remote ref/.test(error.reason)) {
        throw new LandError('config', `the remote ${remote} has no branch ${target}`, { hint: `push ${target} to ${remote} first` });
      }
      throw remoteError(error);
    }
    this.refs = parseQueueRefs(remote, await listRefs(this.queue.cwd, names.local));
    // A job ref that names no commit holds no record: it is skipped, and said once per object (a
    // --watch drainer fetches every pollSeconds: anyone who can push must not fill its log).
    for (const [id, misfit] of this.refs.misfits) {
      const seen = `${id} ${misfit.oid}`;
      if (this.misfitsSaid.has(seen)) continue;
      this.misfitsSaid.add(seen);
      process.stderr.write(`${misfitWarning(remote, id, misfit)}\n`);
    }
  }

  /** Fetches, then brings the cache up to the remote's records. */
  override async refresh(opts: RefreshOptions = {}): Promise<void> {
    await this.fetchRidingOutage(opts.shouldStop ?? (() => false));
    await super.withQueueLock(() => this.materialize());
  }

  /**
   * One fetch. A drainer holding the lease rides out an unreachable remote (lib/store/outage.ts):
   * it tries again with a back-off until the lease's time has passed since the remote last
   * answered, then gives up (exit 13). Anyone else fails at once. When `stop()` holds it stops
   * trying and the cache stays as it was (the caller stops at its boundary).
   */
  private async fetchRidingOutage(stop: () => boolean): Promise<void> {
    for (let failures = 1; ; failures += 1) {
      try {
        await this.fetch();
        return;
      } catch (error) {
        const reason = unreachableReason(error);
        if (reason === null || this.lease.held() === null) throw error;
        const step = nextRetry(failures, this.outage.sinceContactMs(), this.queue);
        if (step.kind === 'give_up') throw this.outage.gaveUp(reason);
        this.outage.unreachable(reason);
        await pauseUnless(step.waitMs, stop);
        if (stop()) return;
      }
    }
  }

  /**
   * Writes every record whose ref moved since the cache last saw it, and appends the journal
   * lines its new commits carry (two git processes, only when something moved).
   */
  private async materialize(): Promise<void> {
    this.takeBackInflight();
    const state = this.readState();
    const changed = [...this.refs.jobs].filter(([id, oid]) => state.jobs[id] !== oid);
    if (changed.length) {
      const messages = await chainMessages(
        this.queue.cwd,
        changed.map(([id, oid]) => ({ tip: oid, since: state.jobs[id] ?? null })),
      );
      const blobs = await readBlobs(
        this.queue.cwd,
        changed.map(([, oid]) => `${oid}:record.json`),
      );
      // A new cache: an empty index at journal offset 0, so readers catch it up from the lines below.
      if (!this.hasJournal() && !this.readIndex()) super.writeIndex({ version: 1, journalEnd: 0, journalTail: '', lastId: null, active: {}, recent: [] });
      for (const message of messages) for (const entry of entriesOfMessage(message)) super.replayJournal(entry);
      for (const [id, oid] of changed) {
        const record = parseRecord(blobs.get(`${oid}:record.json`), id);
        if (record) super.writeJob(record);
        else process.stderr.write(`land: warning: the record of ${id} on ${this.queue.remote} (${oid.slice(0, 12)}) is corrupt; it is left out\n`);
      }
    }
    // A job whose record moved on the remote: the remote's record wins over what this drainer kept back.
    const pending = Object.fromEntries(Object.entries(state.pending).filter(([id]) => !changed.some(([moved]) => moved === id)));
    // A job ref that now names no commit: the cache keeps the record, and the last commit it read (the parent of its next push).
    const kept = [...this.refs.misfits.keys()].flatMap((id) => (state.jobs[id] ? [[id, state.jobs[id]] as const] : []));
    const next: RemoteState = {
      version: 1,
      jobs: { ...Object.fromEntries(kept), ...Object.fromEntries(this.refs.jobs) },
      heads: Object.fromEntries(this.refs.heads),
      seq: this.refs.seq,
      pending,
    };
    if (JSON.stringify(next) !== JSON.stringify(state)) this.writeState(next);
  }

  // ---- the transaction --------------------------------------------------------------------

  override withQueueLock<T>(fn: () => Promise<T> | T): Promise<T> {
    return this.transact(fn, { retry: true });
  }

  /**
   * A hold of the cache's lock lasts a fetch and a push (a second or more, not milliseconds), so
   * changes started together in one clone (a script submitting 20 branches at once) wait in line
   * for longer than a local queue's minute: up to about ten minutes. A dead holder's lock still
   * goes stale after 10 s.
   */
  protected override queueLockRetries(): number {
    return 6000;
  }

  /** A change of this drainer's own bookkeeping: made in the cache only, pushed with the job's next shared change. */
  override withUnsharedQueueLock<T>(fn: () => Promise<T> | T): Promise<T> {
    return super.withQueueLock(() => {
      this.takeBackInflight();
      return fn();
    });
  }

  /** Runs `fn` under the queue lock and pushes what it changed (see the file's comment). */
  transact<T>(fn: () => Promise<T> | T, opts: TransactOptions): Promise<T> {
    return super.withQueueLock(async () => {
      // A drainer whose lease was taken over changes nothing more, not even to put its jobs back.
      const lost = this.lease.lost();
      if (lost) throw lost;
      this.takeBackInflight();
      for (let attempt = 1; ; attempt += 1) {
        if (attempt > 1) {
          await this.fetch();
          await this.materialize();
        }
        const txn = this.begin();
        let result: T;
        try {
          result = await fn();
        } catch (error) {
          this.rollback(txn);
          throw error;
        } finally {
          this.txn = null;
        }
        const pushed = await this.push(txn, opts);
        if (pushed === 'pushed') return result;
        await this.fetch();
        await this.materialize();
        this.lease.checkAfterRefusal();
        this.assertRaceOnly(pushed.refs);
        if (!opts.retry) throw new QueueRaced(pushed.refs);
        if (attempt >= MAX_ATTEMPTS) {
          throw new LandError(
            'busy',
            `the queue on ${this.queue.remote} kept changing: ${attempt} pushes in a row were refused (${describeRefused(pushed.refs)})`,
            {
              hint: 'nothing was changed; run the command again',
            },
          );
        }
        await sleep(10 + Math.random() * 40 * Math.min(attempt, 8));
      }
    });
  }

  /**
   * A refusal that is not a lost race (a hook declined, no permission, a ref the server hides) is
   * no use trying again: it is the server's answer, reported as such (exit 13).
   */
  private assertRaceOnly(refs: readonly { ref: string; why: string }[]): void {
    const RACE =
      /stale info|fetch first|non-fast-forward|atomic push failed|atomic transaction failed|failed to update ref|cannot lock ref|incorrect old value|reference already exists|failed to lock/;
    const refused = refs.filter((r) => !RACE.test(r.why));
    if (!refused.length) return;
    throw new LandError('remote', `the remote ${this.queue.remote} refused the push: ${describeRefused(refused)}`, {
      hint: 'the server declined it (a hook, a protected ref or missing rights): see docs/team.md for what the queue needs',
    });
  }

  private begin(): Transaction {
    const txn: Transaction = {
      before: new Map(),
      after: new Map(),
      entries: [],
      journalStart: null,
      index: { saved: false, value: null },
      branches: new Map(),
      local: [],
    };
    this.txn = txn;
    return txn;
  }

  /** Pushes the transaction's changes; 'pushed' also when there was nothing to push. */
  private async push(txn: Transaction, opts: TransactOptions): Promise<'pushed' | { refs: { ref: string; why: string }[] }> {
    const state = this.readState();
    let plan: Awaited<ReturnType<RemoteStore['updatesOf']>>;
    try {
      plan = await this.updatesOf(txn, state, opts);
    } catch (error) {
      // The commits could not even be written (git failed): nothing reached the remote, so the
      // cache must not keep the change either (it would show a job the remote never had).
      this.rollback(txn);
      throw error;
    }
    if (!plan.updates.length && plan.kept) {
      plan.commit(state);
      this.writeState(state);
    }
    if (plan.updates.length) {
      let pushed: Awaited<ReturnType<typeof pushAtomic>>;
      const landing = Boolean(opts.extra?.length);
      this.saveInflight(txn, plan.pushed);
      if (landing) failpoint('before-landing-push');
      try {
        pushed = await pushAtomic(this.queue.cwd, this.queue.remote, plan.updates);
        this.outage.reached();
      } catch (error) {
        this.rollback(txn);
        this.clearInflight();
        throw remoteError(error);
      }
      if (pushed.kind === 'refused') {
        this.rollback(txn);
        this.clearInflight();
        return { refs: pushed.refs };
      }
      if (landing) failpoint('after-landing-push');
      plan.commit(state);
      this.writeState(state);
      this.clearInflight();
    }
    for (const write of txn.local) write();
    return 'pushed';
  }

  private async updatesOf(txn: Transaction, state: RemoteState, opts: TransactOptions) {
    const names = remoteRefs(this.queue.remote);
    // A job riding this drainer's train changes in the cache only: nobody else may move it, and
    // its landing (or its return to the queue) pushes the record with these journal lines.
    const holding = this.lease.held() !== null;
    const kept = holding ? [...txn.after.values()].filter((job) => job.state === 'in_progress') : [];
    const jobs = [...txn.after.values()].filter((job) => !kept.includes(job));
    const entriesOf = (id: string) => [...(state.pending[id] ?? []), ...txn.entries.filter((entry) => entry.job === id)];
    const created = jobs.filter((job) => state.jobs[job.id] === undefined).map((job) => job.id);
    const renewing = this.lease.held() !== null && (jobs.length > 0 || Boolean(opts.extra?.length) || renewAsked(opts.renew));
    const commits: NewCommit[] = jobs.map((job) => ({
      parent: state.jobs[job.id] ?? null,
      files: [{ name: 'record.json', content: `${JSON.stringify(job, null, 2)}\n` }],
      message: recordMessage(job, entriesOf(job.id)),
    }));
    const last = created.sort().at(-1);
    // A seq ref that names no commit (forged) is replaced by a new history, leased on what it names.
    const seqParent = state.seq !== null && state.seq === this.refs.seq && !this.refs.seqIsCommit ? null : state.seq;
    if (last) commits.push({ parent: seqParent, files: [{ name: 'last', content: `${last}\n` }], message: `land: seq ${last}\n` });
    const lease = renewing ? this.lease.renewalCommit() : null;
    if (lease) commits.push(lease);
    const ids = await writeCommits(this.queue.cwd, commits);
    // The lease is on what the remote holds: a job ref that names no commit is replaced by the record's chain.
    const expectOf = (id: string) => this.refs.misfits.get(id)?.oid ?? state.jobs[id] ?? null;
    const updates: RefUpdate[] = jobs.map((job, i) => ({ ref: names.job(job.id), to: ids[i] as string, expect: expectOf(job.id) }));
    for (const job of jobs) {
      const head = state.heads[job.id] ?? null;
      // A finished job's tip lands nowhere: not sent (a bad tip may be no object this clone has).
      if (job.tip !== head && !TERMINAL_STATES.includes(job.state)) updates.push({ ref: names.head(job.id), to: job.tip, expect: head });
    }
    if (last) updates.push({ ref: names.seq, to: ids[jobs.length] as string, expect: state.seq });
    const leaseId = lease ? (ids[ids.length - 1] as string) : null;
    if (lease && leaseId) updates.push({ ref: names.lease, to: leaseId, expect: lease.parent });
    updates.push(...(opts.extra ?? []));
    const commit = (next: RemoteState) => {
      jobs.forEach((job, i) => {
        next.jobs[job.id] = ids[i] as string;
        next.heads[job.id] = job.tip;
        delete next.pending[job.id];
      });
      for (const job of kept) next.pending[job.id] = entriesOf(job.id);
      if (last) next.seq = ids[jobs.length] as string;
      if (leaseId) this.lease.renewed(leaseId);
    };
    const pushed = Object.fromEntries(jobs.map((job, i) => [job.id, ids[i] as string]));
    return { updates, commit, kept: kept.length > 0, pushed };
  }

  /** Puts the cache back as it was before the transaction: journal, records, index. */
  private rollback(txn: Transaction): void {
    if (txn.journalStart !== null) this.takeBackJournal(txn.journalStart);
    for (const [id, job] of txn.before) {
      if (job) super.writeJob(job);
      else rmSync(this.paths.job(id), { force: true });
    }
    if (txn.index.saved) {
      if (txn.index.value) super.writeIndex(txn.index.value);
      else this.removeIndex();
    }
    for (const [branch, ids] of txn.branches) super.writeBranchJobs(branch, ids ?? []);
  }

  // ---- writes seen by the transaction ---------------------------------------------------------

  override writeJob(job: JobRecord): void {
    const txn = this.txn;
    if (txn && !txn.before.has(job.id)) txn.before.set(job.id, this.readJobQuietly(job.id));
    super.writeJob(job);
    txn?.after.set(job.id, job);
  }

  override appendJournal(entry: JournalLine): number {
    const offset = super.appendJournal(entry);
    if (this.txn) {
      this.txn.journalStart ??= offset;
      this.txn.entries.push(entry);
    }
    return offset;
  }

  override writeIndex(index: ActiveIndex): boolean {
    if (this.txn && !this.txn.index.saved) this.txn.index = { saved: true, value: this.readIndex() };
    return super.writeIndex(index);
  }

  override writeBranchJobs(branch: string, ids: readonly string[]): boolean {
    if (this.txn && !this.txn.branches.has(branch)) this.txn.branches.set(branch, this.branchJobIds(branch));
    return super.writeBranchJobs(branch, ids);
  }

  override addBranchJobs(branch: string, ids: readonly string[]): boolean {
    if (this.txn && !this.txn.branches.has(branch)) this.txn.branches.set(branch, this.branchJobIds(branch));
    return super.addBranchJobs(branch, ids);
  }

  override appendMetric(row: WrittenMetricsRow): void {
    if (this.txn) this.txn.local.push(() => super.appendMetric(row));
    else super.appendMetric(row);
  }

  override writeWindow(state: WindowState): void {
    if (this.txn) this.txn.local.push(() => super.writeWindow(state));
    else super.writeWindow(state);
  }

  private readJobQuietly(id: string): JobRecord | null {
    try {
      return this.readJob(id);
    } catch {
      return null;
    }
  }

  // ---- the lease, waiting ---------------------------------------------------------------------

  override async acquireDrainLock(opts: { wait: boolean; onWaiting?: (holder: DrainHolder | null) => void; shouldStop?: () => boolean }): Promise<DrainLease> {
    const local = await super.acquireDrainLock(opts);
    try {
      await this.lease.take(opts);
    } catch (error) {
      await local.release();
      throw error;
    }
    return {
      holder: local.holder,
      compromised: () => this.lease.lost() ?? local.compromised(),
      holds: () => this.lease.lost() === null && local.holds(),
      release: async () => {
        await this.lease.release();
        await local.release();
      },
    };
  }

  /** The records change only when the remote's do: polled every `pollSeconds`. */
  override async waitForChange(opts: WaitForChangeOptions): Promise<WaitOutcome> {
    const started = Date.now();
    for (;;) {
      if (opts.signal?.aborted) return { kind: 'aborted' };
      if (opts.timeoutMs != null && Date.now() - started >= opts.timeoutMs) return { kind: 'timeout' };
      if (this.jobsVersion() !== opts.since) return { kind: 'changed', by: 'poll' };
      await sleepUnless(this.queue.pollSeconds * 1000, opts.signal);
      if (opts.signal?.aborted) return { kind: 'aborted' };
      // A drainer holding the lease rides out an outage in refresh, and gives up with its error.
      await this.refresh({ shouldStop: () => opts.signal?.aborted === true }).catch((error: unknown) => {
        if (this.lease.held() !== null) throw error;
        process.stderr.write(`land: warning: ${(remoteError(error) as Error).message}; trying again\n`);
      });
    }
  }

  override async queueView(): Promise<QueueView> {
    const found = await this.drainerLease();
    const lease = found?.lease;
    return {
      remote: this.queue.remote,
      drainer:
        found && lease ? { holder: lease.holder, host: lease.host, pid: lease.pid, epoch: lease.epoch, released: lease.released, commit: found.commit } : null,
    };
  }

  override landingPush(): LandingPush {
    return {
      pushLanding: (fn, target) => this.transact(fn, { retry: false, extra: [target] }),
      noteTargetMoved: (target, commit) => this.noteTargetMoved(target, commit),
    };
  }

  /** The lease as last fetched: who drains this queue (null: nobody ever did). */
  async drainerLease(): Promise<{ lease: Lease | null; commit: string } | null> {
    const oid = this.refs.lease;
    return oid ? { lease: await this.lease.read(oid), commit: oid } : null;
  }

  /** After a landing went through: the clone's view of the target moves with it (no fetch). */
  async noteTargetMoved(target: string, commit: string): Promise<void> {
    // Only a view: if other git processes keep it locked, the next fetch brings it, and a train
    // built on the old view meanwhile loses its landing push's lease and is rebuilt.
    await setLocalRef(this.queue.cwd, this.targetRef(target), commit).catch((error: unknown) => {
      if (!(error instanceof LocalRefsBusy)) throw error;
    });
  }
}
