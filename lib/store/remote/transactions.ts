// Each hold of a remote queue's lock is a transaction: the holder's changes to the cache (journal
// lines, records, the index and branch lists, recorded by RemoteStore's writes in `current`) are
// pushed to the remote in one atomic push with a lease on every ref it moves. A refused push takes
// the cache's changes back, fetches, and runs the holder again (or, for a landing, reports the
// lost race: QueueRaced). inflight.json lets a later hold take back the changes of a process that
// died during its push.
import { rmSync, statSync } from 'node:fs';
import { LandError } from '../../errors.js';
import { failpoint } from '../../failpoint.js';
import { pushAtomic, writeCommits, type RefUpdate } from '../../git/index.js';
import type { LocalStore } from '../localStore.js';
import type { OutageNotice } from '../outage.js';
import type { QueueRemote, RemoteState } from '../remoteLayout.js';
import type { LeaseKeeper } from '../remoteLease.js';
import type { RemoteCacheFiles } from './cacheFiles.js';
import { assertRaceOnly, describeRefused, QueueRaced, remoteError } from './errors.js';
import type { QueueFetcher } from './fetcher.js';
import { materialize } from './materialize.js';
import { materializePublished } from './materializePublished.js';
import type { PublishedFiles } from './publishedFiles.js';
import { readLogForPublishing } from '../formats/published.js';
import { publishPart } from './publish.js';
import { pushUpdates, type PushPlan } from './pushPlan.js';
import { emptyTransaction, sleep, type Transaction, type TransactOptions } from './transaction.js';

/** How many times a refused push of an ordinary change is fetched and tried again. */
const MAX_ATTEMPTS = 40;

type Refused = { refs: { ref: string; why: string }[] };

export class Transactions {
  /** The transaction of the hold running now, if any. */
  current: Transaction | null = null;

  constructor(
    private readonly parts: {
      cache: LocalStore;
      files: RemoteCacheFiles;
      fetcher: QueueFetcher;
      lease: LeaseKeeper;
      outage: OutageNotice;
      queue: QueueRemote;
      published: PublishedFiles;
    },
  ) {}

  /** Under the cache's lock: a transaction left in flight is taken back, then the moved records and what drainers published are read. */
  async materialize(): Promise<void> {
    this.takeBackInflight();
    const { cache, files, fetcher, queue, published } = this.parts;
    await materialize({ cache, files, refs: fetcher.refs, queue });
    const state = files.readState();
    const reader = {
      cwd: queue.cwd,
      remote: queue.remote,
      files: published,
      ownDrainer: files.knownDrainerId(),
      ownLog: (train: string) => cache.hasLog(train),
      warn: (key: string, message: string) => this.warnOnce(key, message),
    };
    const next = await materializePublished(reader, fetcher.refs, state.published);
    if (JSON.stringify(next) !== JSON.stringify(state.published)) files.writeState({ ...state, published: next });
  }

  /** Published objects already warned about, each said once per process (a --watch drainer fetches every pollSeconds). */
  private readonly said = new Set<string>();

  private warnOnce(key: string, message: string): void {
    if (this.said.has(key)) return;
    this.said.add(key);
    process.stderr.write(`land: warning: ${message}\n`);
  }

  /**
   * Under the queue lock: a transaction whose process died during its push (its inflight.json is
   * still there) is taken back from the cache, unless remote.json shows its push was recorded. The
   * remote's refs then say what happened: a push the remote took is fetched as any other change.
   */
  takeBackInflight(): void {
    const { cache, files } = this.parts;
    if (!files.hasInflight()) return;
    const saved = files.readInflight(); // an unreadable one is dropped
    const jobs = files.readState().jobs;
    const recorded = saved !== null && Object.entries(saved.pushed).some(([id, oid]) => jobs[id] === oid);
    if (saved && !recorded) {
      const journalSize = cache.hasJournal() ? statSync(cache.paths.journal).size : 0;
      this.rollback({
        ...emptyTransaction(),
        before: new Map(Object.entries(saved.before)),
        journalStart: saved.journalStart !== null && saved.journalStart <= journalSize ? saved.journalStart : null,
        index: saved.index,
        branches: new Map(Object.entries(saved.branches)),
      });
    }
    files.clearInflight();
  }

  /** Runs `fn` under the queue lock and pushes what it changed (see the file's comment). */
  transact<T>(fn: () => Promise<T> | T, opts: TransactOptions): Promise<T> {
    const { cache, fetcher, lease, queue } = this.parts;
    return cache.withQueueLock(async () => {
      // A drainer whose lease was taken over changes nothing more, not even to put its jobs back.
      const lost = lease.lost();
      if (lost) throw lost;
      this.takeBackInflight();
      for (let attempt = 1; ; attempt += 1) {
        if (attempt > 1) {
          await fetcher.fetch();
          await this.materialize();
        }
        const txn = emptyTransaction();
        this.current = txn;
        let result: T;
        try {
          result = await fn();
        } catch (error) {
          this.rollback(txn);
          throw error;
        } finally {
          this.current = null;
        }
        const pushed = await this.push(txn, opts);
        if (pushed === 'pushed') return result;
        await fetcher.fetch();
        await this.materialize();
        lease.checkAfterRefusal();
        assertRaceOnly(queue.remote, pushed.refs);
        if (!opts.retry) throw new QueueRaced(pushed.refs);
        if (attempt >= MAX_ATTEMPTS) {
          throw new LandError('busy', `the queue on ${queue.remote} kept changing: ${attempt} pushes in a row were refused (${describeRefused(pushed.refs)})`, {
            hint: 'nothing was changed; run the command again',
          });
        }
        await sleep(10 + Math.random() * 40 * Math.min(attempt, 8));
      }
    });
  }

  /** Pushes the transaction's changes; 'pushed' also when there was nothing to push. */
  private async push(txn: Transaction, opts: TransactOptions): Promise<'pushed' | Refused> {
    const { files, fetcher, lease, queue } = this.parts;
    const state = files.readState();
    let plan: PushPlan;
    try {
      plan = await pushUpdates({ txn, state, transact: opts, refs: fetcher.refs, lease, queue, unpublished: (rows) => this.unpublished(state, rows) });
    } catch (error) {
      // The commits could not even be written (git failed): nothing reached the remote, so the
      // cache must not keep the change either (it would show a job the remote never had).
      this.rollback(txn);
      throw error;
    }
    if (!plan.updates.length && plan.kept) {
      plan.commit(state);
      files.writeState(state);
    }
    if (plan.updates.length) {
      const refused = await this.pushPlan(txn, plan, Boolean(opts.extra?.length));
      if (refused) return refused;
      plan.commit(state);
      files.writeState(state);
      files.clearInflight();
    }
    for (const write of txn.local) write();
    if (plan.publishedRows) this.markPublished(state);
    return 'pushed';
  }

  /** What this drainer has not published: the rows of metrics.jsonl past remote.json's mark, then `txnRows`. */
  private unpublished(state: RemoteState, txnRows: readonly Record<string, unknown>[]) {
    const { cache, files } = this.parts;
    const at = state.published.metricsAt;
    // An unknown mark (a damaged remote.json) publishes nothing already written: never a row twice.
    const fromFile = at === null ? [] : cache.readMetricsFrom(Math.min(at, cache.metricsSize())).rows;
    return {
      drainer: files.drainerId(),
      rows: [...fromFile, ...txnRows],
      logText: (train: string) => (cache.hasLog(train) ? readLogForPublishing((offset) => cache.readLogFrom(train, offset)) : null),
    };
  }

  /** Every row of metrics.jsonl is published now: remote.json's mark moves to its end. */
  private markPublished(state: RemoteState): void {
    state.published.metricsAt = this.parts.cache.metricsSize();
    this.parts.files.writeState(state);
  }

  /**
   * Under the cache's lock, when a drainer lets go of its lease: the rows it has not published yet
   * ride the lease's release push (`updates`); `done` moves remote.json's mark once it went through.
   */
  async publishRest(): Promise<{ updates: RefUpdate[]; done: () => void } | null> {
    const { files, fetcher, queue } = this.parts;
    const state = files.readState();
    const part = publishPart({ ...this.unpublished(state, []), refs: fetcher.refs, published: state.published, remote: queue.remote });
    if (!part) return null;
    const ids = await writeCommits(queue.cwd, part.commits);
    return {
      updates: part.updates(ids),
      done: () => {
        part.record(state.published, ids);
        this.markPublished(state);
      },
    };
  }

  /** The push itself, inflight.json saved before it; a refusal or a failure takes the cache back. */
  private async pushPlan(txn: Transaction, plan: PushPlan, landing: boolean): Promise<Refused | null> {
    const { files, outage, queue } = this.parts;
    files.saveInflight({
      version: 1,
      journalStart: txn.journalStart,
      before: Object.fromEntries(txn.before),
      index: txn.index,
      branches: Object.fromEntries(txn.branches),
      pushed: plan.pushed,
    });
    if (landing) failpoint('before-landing-push');
    let pushed: Awaited<ReturnType<typeof pushAtomic>>;
    try {
      pushed = await pushAtomic(queue.cwd, queue.remote, plan.updates);
      outage.reached();
    } catch (error) {
      this.rollback(txn);
      files.clearInflight();
      throw remoteError(error);
    }
    if (pushed.kind === 'refused') {
      this.rollback(txn);
      files.clearInflight();
      return { refs: pushed.refs };
    }
    if (landing) failpoint('after-landing-push');
    return null;
  }

  /** Puts the cache back as it was before the transaction: journal, records, index. */
  private rollback(txn: Transaction): void {
    const { cache } = this.parts;
    if (txn.journalStart !== null) cache.takeBackJournal(txn.journalStart);
    for (const [id, job] of txn.before) {
      if (job) cache.writeJob(job);
      else rmSync(cache.paths.job(id), { force: true });
    }
    if (txn.index.saved) {
      if (txn.index.value) cache.writeIndex(txn.index.value);
      else cache.removeIndex();
    }
    for (const [branch, ids] of txn.branches) cache.writeBranchJobs(branch, ids ?? []);
  }
}
