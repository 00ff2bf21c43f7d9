// The effectful half of `land why`: reads one job's journal lines (one pass over the journal), the
// metrics rows of the batches it rode, its record and its place in the queue, builds the story,
// then reads the failing gates' output from the train logs.
import { listActiveJobsSync, readJobOrThrow, runnableJobs } from '../queue/index.js';
import { journalDetail, type QueueStore } from '../store/index.js';
import { buildStory } from './buildStory.js';
import { decidingSection, GateLogReader } from '../landing/gates/gateLog.js';
import { LOG_TAIL_LINES } from '../landing/gates/logTail.js';
import { markRepeatedOutput } from './repeatedOutput.js';
import { parseTrainRows, type TrainRow } from './trainRow.js';
import type { Story } from './types.js';

/** The most lines of each verdict's excerpt: as many as the job record keeps. */
export const OUTPUT_LINES = LOG_TAIL_LINES;

/** Rows of the given batches or trains, or naming the job; one pass over metrics.jsonl. */
function rowsFor(store: QueueStore, jobId: string, batches: ReadonlySet<string>, trains: ReadonlySet<string>): TrainRow[] {
  const needles = [...batches, ...trains, jobId];
  const { rows } = parseTrainRows(store.readMetricsMatching(needles).rows);
  return rows.filter((row) => (row.batch !== undefined && batches.has(row.batch)) || trains.has(row.train) || row.members.includes(jobId));
}

export function readStory(store: QueueStore, id: string, outputLines = OUTPUT_LINES): Story {
  const job = readJobOrThrow(store, id);
  const { entries, badLines } = store.readJournalOf(job.id);
  const batches = new Set<string>();
  const trains = new Set<string>();
  for (const entry of entries) {
    const started = journalDetail(entry, 'train_started');
    if (started?.batch !== undefined) batches.add(started.batch);
    if (started?.train !== undefined) trains.add(started.train);
  }
  if (job.batch) batches.add(job.batch.id);
  const rows = rowsFor(store, job.id, batches, trains);
  // Verdicts reused from the cache: the row of the train that judged the tree names the gate.
  const known = new Set(rows.map((row) => row.train));
  const reused = new Set(rows.map((row) => row.gate?.cachedFrom).filter((train): train is string => typeof train === 'string' && !known.has(train)));
  if (reused.size) rows.push(...rowsFor(store, job.id, new Set(), reused).filter((row) => !known.has(row.train) && reused.has(row.train)));

  const position = job.state === 'queued' ? runnableJobs(listActiveJobsSync(store).jobs).findIndex((other) => other.id === job.id) + 1 || null : null;
  const runningLog = job.state === 'in_progress' && job.batch?.train ? store.logPath(job.batch.train) : null;
  const story = buildStory({ job, journal: entries, rows, position, runningLog, skippedJournalLines: badLines });
  attachGateOutput(store, story, outputLines);
  markRepeatedOutput(story.events);
  pointLogsHere(store, story);
  return story;
}

/**
 * A verdict's log as this machine has it: the metrics row names the path the drainer wrote, which
 * on a team is a path on a CI runner; a log published through the remote has a copy here. A log
 * not here keeps the drainer's path, marked `logHere: false`. The failure's message (written by
 * the drainer: `...; log <path>`) and the `now` event's log name the copy here too.
 */
export function pointLogsHere(store: QueueStore, story: Story): void {
  const here = new Map<string, string>();
  for (const event of story.events) {
    if (event.kind !== 'verdict' || !event.logTrain || !event.log) continue;
    event.logHere = store.hasLog(event.logTrain);
    if (!event.logHere) continue;
    const local = store.logPath(event.logTrain);
    if (local !== event.log) here.set(event.log, local);
    event.log = local;
  }
  if (!here.size) return;
  for (const event of story.events) {
    if ((event.kind !== 'failed' && event.kind !== 'now') || !event.message) continue;
    for (const [drainers, local] of here) event.message = event.message.replaceAll(`log ${drainers}`, `log ${local}`);
    if (event.kind === 'now' && event.log) event.log = here.get(event.log) ?? event.log;
  }
}

/** Fills each FAIL or INFRA verdict with the excerpt of the deciding gate's section of its log. */
export function attachGateOutput(store: QueueStore, story: Story, outputLines: number): void {
  const logs = new Map<string, ReturnType<GateLogReader['result']> | null>();
  for (const event of story.events) {
    if (event.kind !== 'verdict' || event.verdict === 'PASS' || event.verdict === 'VOID' || !event.logTrain) continue;
    let parsed = logs.get(event.logTrain);
    if (parsed === undefined) {
      const reader = new GateLogReader(outputLines);
      let found = false;
      try {
        found = store.scanLog(event.logTrain, (line) => reader.push(line));
      } catch {
        found = false; // a log id that is not a train id: nothing to show
      }
      parsed = found ? reader.result() : null;
      logs.set(event.logTrain, parsed);
    }
    if (!parsed) continue;
    const section = decidingSection(parsed.sections, event.failing?.name ?? null);
    if (section) {
      event.output = section.excerpt;
      event.failing ??= { name: section.name, status: section.status ?? 'no end line (still running, or its drainer stopped)', seconds: section.seconds };
      if (event.failing.seconds === null && section.name === event.failing.name) event.failing.seconds = section.seconds;
    } else {
      event.output = parsed.excerpt;
    }
  }
}
