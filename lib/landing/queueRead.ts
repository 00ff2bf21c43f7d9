// The drain's reading of the queue, and its repairs: each listing of the active jobs reports a
// corrupt record once per drain, rebuilds from the journal a queued or running job whose record
// vanished since the last listing (deleted by hand or by a gate), and keeps the live jobs, to name
// them when the whole state folder vanishes.
import { LandError } from '../errors.js';
import { beginUnsyncedLocked, listActiveJobs, rebuildJobLocked, rebuildMissingLocked } from '../queue/index.js';
import type { QueueStore, JobRecord } from '../store/index.js';
import type { Emit } from './events.js';

/** A listing of the queue, with the records' version read just before it (a later change wakes an idle wait). */
export interface QueueRead {
  version: string;
  jobs: JobRecord[];
}

export interface QueueReaderOptions {
  /** An idle watcher (`land run --watch`) waits on the records' version; others need none. */
  watching: boolean;
  /** Whether a remote's outage should stop being ridden out (a stop asked, the lease lost). */
  shouldStop: () => boolean;
}

export class QueueReader {
  /** Corrupt record files already reported (each once per drain). */
  private readonly reported = new Set<string>();
  /** The queued and running jobs of the last listing: one that vanishes from the next is rebuilt. */
  private live = new Map<string, JobRecord>();
  /** The last train built, to name it when the state folder vanishes. */
  private lastTrain: string | null = null;

  constructor(
    private readonly store: QueueStore,
    private readonly emit: Emit,
    private readonly opts: QueueReaderOptions,
  ) {}

  async read(): Promise<QueueRead> {
    const { store } = this;
    // A queue kept in a remote: one fetch of its refs and the target; an outage of the remote shorter
    // than the lease is ridden out there (lib/store/outage.ts), unless a stop is asked meanwhile.
    await store.refresh({ shouldStop: this.opts.shouldStop });
    const version = this.opts.watching ? store.jobsVersion() : '';
    const listing = await listActiveJobs(store); // the index of active jobs: no finished record is read
    for (const bad of listing.corrupt) this.reportCorrupt(bad.file, bad.problem);
    const listed = new Set([...listing.jobs.map((job) => job.id), ...listing.corrupt.map((bad) => bad.file.replace(/\.json$/, ''))]);
    const vanished = [...this.live.keys()].filter((id) => !listed.has(id));
    const jobs = vanished.length && !store.stateFolderVanished() ? [...listing.jobs, ...(await this.rebuildVanished(vanished))] : listing.jobs;
    this.live = new Map(jobs.filter((job) => job.state === 'queued' || job.state === 'in_progress').map((job) => [job.id, job]));
    return { version, jobs };
  }

  /**
   * At the start of a drain, before any other write: the records a power cut left behind the
   * journal are rebuilt (or reported), and from then on records are written without fsync
   * (lib/queue/unsyncedWrites.ts; the drain's end fsyncs them).
   */
  async beginUnsynced(): Promise<void> {
    const { store } = this;
    const repair = await store.withQueueLock(() => beginUnsyncedLocked(store));
    if (!repair) return;
    for (const job of repair.rebuilt) this.emit({ type: 'record_rebuilt', job: job.id, state: job.state });
    for (const bad of repair.corrupt) this.reportCorrupt(`${bad.id}.json`, bad.problem);
    if (repair.windowReset)
      this.emit({ type: 'warning', message: 'window.json was unreadable after the machine restarted: the window starts again at batch.max' });
  }

  /** At the start of a drain: every record the journal knows but the jobs folder lacks is rebuilt (or reported). */
  async rebuildMissing(): Promise<void> {
    const { store } = this;
    const missing = await store.withQueueLock(() => rebuildMissingLocked(store));
    for (const job of missing.rebuilt) this.emit({ type: 'record_rebuilt', job: job.id, state: job.state });
    for (const bad of missing.corrupt) this.reportCorrupt(`${bad.id}.json`, bad.problem);
  }

  /** A train was built: its members are running now. */
  trainBuilt(train: string, members: readonly string[]): void {
    this.lastTrain = train;
    for (const id of members) {
      const job = this.live.get(id);
      if (job) this.live.set(id, { ...job, state: 'in_progress' });
    }
  }

  /**
   * The state folder was removed while the drain ran (a gate ran `rm -rf .git/land`): the drain
   * stops and says so, instead of taking the lost lock for another drainer's. Exit 8 (`corrupt`):
   * the queue's state is destroyed, nobody else holds it.
   */
  stateVanishedError(): LandError {
    const by = this.lastTrain ? ` (by the gate of train ${this.lastTrain}?)` : '';
    const lost = [...this.live.values()];
    return new LandError(
      'corrupt',
      `the state folder ${this.store.root} was removed while the drain ran${by}: its job records and journal are gone (${lost.length} queued or running job(s) lost); the drain stops`,
      {
        details: lost.map((job) => `${job.id} ${JSON.stringify(job.branch)} was ${job.state}`),
        hint: 'resubmit those branches (`land submit <branch>`); a gate must never write to the git folder (docs/state.md#a-removed-state-folder)',
      },
    );
  }

  private reportCorrupt(file: string, problem: string): void {
    if (this.reported.has(file)) return;
    this.reported.add(file);
    this.emit({ type: 'corrupt_record', file, problem });
  }

  /** Records that vanished since the last listing (deleted by hand or by a gate): rebuilt from the journal, or reported. */
  private async rebuildVanished(ids: readonly string[]): Promise<JobRecord[]> {
    const { store } = this;
    const rebuilt: JobRecord[] = [];
    await store.withQueueLock(() => {
      for (const id of ids) {
        if (store.readJob(id)) continue; // back meanwhile: the next listing has it
        try {
          const job = rebuildJobLocked(store, id);
          if (job) rebuilt.push(job);
        } catch (error) {
          if (!(error instanceof LandError)) throw error;
          this.reportCorrupt(`${id}.json`, error.message);
        }
      }
    });
    for (const job of rebuilt) this.emit({ type: 'record_rebuilt', job: job.id, state: job.state });
    return rebuilt;
  }
}
