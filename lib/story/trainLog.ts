// `land log`: which gate log belongs to a job (the trains it rode, from the journal), printing it,
// and following it while its gate runs, like `tail -f`, until the train is over for the job.
import { LandError } from '../errors.js';
import { listActiveJobsSync, readJobOrThrow } from '../queue/index.js';
import { journalDetail, publishedTrainSchema, type QueueStore, type JobRecord } from '../store/index.js';
import { chooseLog, noGateLine } from './logChoice.js';
import { parseTrainRows } from './trainRow.js';

/** The trains a job rode, oldest first (journal train_started lines, and the one it rides now). */
export function trainsOfJob(store: QueueStore, job: JobRecord): string[] {
  const trains: string[] = [];
  // A journal line or a record may be forged (a queue in a remote): a name that is no train id is left out.
  const add = (train: string | undefined) => {
    if (train && !trains.includes(train) && publishedTrainSchema.safeParse(train).success) trains.push(train);
  };
  for (const entry of store.readJournalOf(job.id).entries) add(journalDetail(entry, 'train_started')?.train);
  add(job.state === 'in_progress' ? job.batch?.train : undefined);
  return trains;
}

export interface JobLog {
  job: JobRecord;
  train: string;
  path: string;
  /**
   * The train whose gates judged this train's tree, when its verdict came from the verdict cache
   * (its own log holds land's header lines only); null when its gates ran.
   */
  judgedBy: string | null;
  /**
   * What `land log` prints (logChoice.ts): the train's own log (then the judging train's, if any);
   * the judging train's alone (the cached train's own log is not here); or `noGate`, one line.
   */
  shows: 'own' | 'judging' | 'no_gate';
  noGate: string | null;
}

/**
 * The train that judged `train`'s tree when its verdict came from the verdict cache: the gate
 * telemetry's `cachedFrom`, on the job record (its last train) or on the train's metrics row.
 */
export function judgingTrain(store: QueueStore, job: JobRecord, train: string, latest: boolean): string | null {
  const fromRecord = latest && job.gate?.mode === 'cached' ? job.gate.cachedFrom : undefined;
  const { rows } = fromRecord ? { rows: [] } : parseTrainRows(store.readMetricsMatching([train]).rows);
  const from = fromRecord ?? rows.find((row) => row.train === train)?.gate?.cachedFrom;
  // A record or a published row may be forged: a name that is no train id is not looked up (the job's own log still prints).
  return from && from !== train && publishedTrainSchema.safeParse(from).success ? from : null;
}

/** The log of the job's latest train, or of `train`, which the job must have ridden. */
export function jobLog(store: QueueStore, id: string, train?: string): JobLog {
  const job = readJobOrThrow(store, id);
  const trains = trainsOfJob(store, job);
  if (train !== undefined) {
    if (!trains.includes(train)) {
      throw new LandError('not_found', `job ${job.id} did not ride train ${train}`, {
        hint: trains.length ? `it rode: ${trains.join(', ')}` : 'it has not ridden a train yet',
      });
    }
  }
  const chosen = train ?? trains[trains.length - 1];
  if (!chosen)
    throw new LandError('not_found', `job ${job.id} has not ridden a train yet: there is no gate log`, { hint: `land why ${job.id} tells its story` });
  const latest = chosen === trains[trains.length - 1];
  const judgedBy = judgingTrain(store, job, chosen, latest);
  const noGate = noGateLine(job, chosen, latest);
  const own = !store.hasLog(chosen) ? 'absent' : noGate === null || store.readLogFrom(chosen, 0).text ? 'present' : 'empty';
  const leftOut = noGate !== null && job.reason === 'conflict';
  const choice = chooseLog({ own, judgedBy, judgingHere: judgedBy !== null && store.hasLog(judgedBy), noGate, leftOut });
  if (choice.kind === 'gone')
    throw new LandError('not_found', `the log of train ${chosen} is gone (${store.logPath(chosen)})`, { hint: `land why ${job.id} tells its story` });
  return { job, train: chosen, path: store.logPath(chosen), judgedBy, shows: choice.kind, noGate: choice.kind === 'no_gate' ? choice.line : null };
}

/** The whole log, read in pieces. */
export function readWholeLog(store: QueueStore, train: string): string {
  const parts: string[] = [];
  for (let offset = 0; ; ) {
    const slice = store.readLogFrom(train, offset);
    if (!slice.text) break;
    parts.push(slice.text);
    offset = slice.next;
  }
  return parts.join('');
}

/** Whether the train is still running for the job: it rides it, and a drainer is alive. */
export function stillRunning(store: QueueStore, jobId: string, train: string): boolean {
  const job = store.readJob(jobId);
  return job !== null && job.state === 'in_progress' && job.batch?.train === train && store.drainerAlive();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writes the log from the start, then what is appended to it while the train runs for the job;
 * returns once it is over (and what was appended meanwhile is written), or when `stop()` holds.
 */
export async function followLog(
  store: QueueStore,
  log: JobLog,
  write: (text: string) => void,
  opts: { pollMs?: number; stop?: () => boolean } = {},
): Promise<void> {
  let offset = 0;
  const drain = () => {
    for (;;) {
      const slice = store.readLogFrom(log.train, offset);
      if (!slice.text) return;
      write(slice.text);
      offset = slice.next;
    }
  };
  for (;;) {
    const running = stillRunning(store, log.job.id, log.train);
    drain();
    if (!running || opts.stop?.()) return;
    await sleep(opts.pollMs ?? 200);
  }
}

/**
 * The job `land log --train <train>` prints the log for when no job is named: one riding the train
 * now, else the first member its metrics row names that still has a record.
 */
export function jobOfTrain(store: QueueStore, train: string): string {
  const riding = listActiveJobsSync(store).jobs.find((job) => job.state === 'in_progress' && job.batch?.train === train);
  if (riding) return riding.id;
  const { rows } = parseTrainRows(store.readMetricsMatching([train]).rows);
  const member = rows.find((row) => row.train === train)?.members.find((id) => store.readJob(id) !== null);
  if (member) return member;
  throw new LandError('not_found', `no job rides train ${train}, and no metrics row here names its members`, {
    hint: `name the job: land log <id> --train ${train} (land why <id> lists the trains it rode)`,
  });
}
