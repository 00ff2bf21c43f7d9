// The failure story as a pure function: one job's journal lines (in order), the metrics rows of
// the trains of its batches, and its record → the events of `land why`. Reading the files and the
// gate logs is lib/story/readStory.ts; this only puts what they say in order.
import { rerunEvidenceText } from '../landing/plan/flakyPlan.js';
import { journalDetail, trustedTelemetrySchema, type JobRecord, type JournalEntry } from '../store/index.js';
import { isAdvisoryFailure, isCountedFailure, type TrainRow } from './trainRow.js';
import type { BisectionStep, GateOutcome, MemberRef, Story, StoryEvent } from './types.js';

export interface StoryInput {
  job: JobRecord;
  /** The job's journal lines, oldest first. */
  journal: readonly JournalEntry[];
  /** Metrics rows of the batches the job rode (and of trains whose verdicts they reused). */
  rows: readonly TrainRow[];
  /** Queued: its place in landing order (1 = next). */
  position: number | null;
  /** Riding: the path of the log being written. */
  runningLog: string | null;
  skippedJournalLines?: readonly number[];
}

/** A train_started line's detail, as read. */
type TrainStarted = NonNullable<ReturnType<typeof journalDetail<'train_started'>>>;

/** Journal events that end a ride: the train's verdict comes before them. */
const RIDE_ENDS = new Set(['train_started', 'requeued', 'failed', 'landing', 'landed', 'already_contained', 'recovered_landed', 'canceled']);

/** Journal events that only repeat what other events tell. */
const QUIET = new Set(['fast_path_checked', 'landing']);

function membersOf(row: TrainRow): MemberRef[] {
  return row.members.map((id, i) => ({ id, branch: row.branches?.[i] ?? null }));
}

function gatesOf(row: TrainRow): GateOutcome[] {
  return (row.gate?.results ?? []).map((r) => ({ name: r.name, status: r.status, seconds: r.seconds ?? null }));
}

/** The gate that decided a FAIL or INFRA, from the row itself or the row of the train it reused. */
function failingGate(row: TrainRow, byTrain: ReadonlyMap<string, TrainRow>): GateOutcome | null {
  if (row.verdict === 'PASS') return null;
  const refresh = row.gate?.refresh;
  if (row.reason === 'refresh' && refresh?.entry) return { name: `refresh "${refresh.entry}"`, status: refresh.status ?? 'failed', seconds: null };
  const failed = (row.gate?.results ?? []).find(isCountedFailure);
  if (failed) return { name: failed.name, status: failed.status, seconds: failed.seconds ?? null };
  const from = row.gate?.cachedFrom ? byTrain.get(row.gate.cachedFrom) : undefined;
  return from && from !== row ? failingGate(from, byTrain) : null;
}

/** The trusted paths the train restored for its gates, and those this job's own merge changes. */
function trustedOf(row: TrainRow, jobId: string): { restored: string[]; job: string[] } | null {
  const parsed = trustedTelemetrySchema.safeParse(row.gate?.trusted);
  if (!parsed.success || !parsed.data.restored.length) return null;
  return { restored: parsed.data.restored, job: parsed.data.byJob[jobId] ?? [] };
}

function verdictEvent(row: TrainRow, byTrain: ReadonlyMap<string, TrainRow>, jobId: string): StoryEvent {
  const cachedFrom = row.gate?.cachedFrom ?? null;
  return {
    kind: 'verdict',
    at: row.at ?? null,
    train: row.train,
    verdict: row.verdict,
    reason: row.reason ?? null,
    cached: row.cached === true,
    cachedFrom,
    gateSeconds: row.gateSeconds ?? null,
    gates: gatesOf(row),
    failing: failingGate(row, byTrain),
    log: row.log ?? null,
    logTrain: row.log ? (cachedFrom ?? row.train) : null,
    output: null,
    trusted: trustedOf(row, jobId),
    ...advisoryOf(row),
  };
}

/** The advisory gates that failed in the train's run: told, not counted; absent when none did. */
function advisoryOf(row: TrainRow): { advisoryFailed?: GateOutcome[] } {
  const failed = (row.gate?.results ?? []).filter(isAdvisoryFailure);
  return failed.length ? { advisoryFailed: failed.map((r) => ({ name: r.name, status: r.status, seconds: r.seconds ?? null })) } : {};
}

function rodeEvent(at: string, train: string, detail: TrainStarted, row: TrainRow | undefined): StoryEvent {
  return {
    kind: 'rode',
    at,
    train,
    batch: detail.batch ?? row?.batch ?? null,
    attempt: detail.attempt ?? row?.attempt ?? null,
    trainKind: row?.kind ?? null,
    base: row?.base ?? null,
    members: row ? membersOf(row) : [],
    commit: row?.commit ?? null,
    tree: row?.tree ?? null,
  };
}

/** The train a train_started line names; lines written before trains had ids are matched by batch and attempt. */
function trainOf(entry: JournalEntry, detail: TrainStarted, jobId: string, rows: readonly TrainRow[]): string | null {
  if (detail.train) return detail.train;
  const batch = detail.batch ?? null;
  const attempt = detail.attempt ?? null;
  const match = rows.find(
    (row) => row.batch === batch && row.attempt === attempt && row.members.includes(jobId) && (row.at === undefined || row.at >= entry.at),
  );
  return match?.train ?? null;
}

function describeDetail(detail: Record<string, unknown>): string {
  const parts = Object.entries(detail)
    .filter(([, value]) => value !== null && value !== undefined && typeof value !== 'object')
    .map(([key, value]) => `${key} ${String(value)}`);
  return parts.join(', ');
}

/**
 * A failed run's status inside a sentence's brackets, without brackets of its own: a verdict from the
 * cache reads "exit 1 (cached: the same tree failed in train X)" (gates/judgeCheap.ts), told here
 * as "exit 1; cached: the same tree failed in train X".
 */
export function flatStatus(status: string | null | undefined): string {
  return (status ?? 'FAIL').replace(/ \((.*)\)$/, '; $1');
}

/** The notes of flaky re-runs: a re-run asked, a flake found on the job's tree or on the target's. */
function flakeNoteText(entry: JournalEntry): string {
  switch (entry.event) {
    case 'gate_rerun': {
      const d = journalDetail(entry, 'gate_rerun');
      const members = d?.members ?? 1;
      const riders = members > 1 ? `with ${members} jobs on the train` : 'with this job alone';
      const again = `its gates run again on the same tree (run ${String(d?.run ?? '?')} of train ${d?.train ?? '?'}`;
      const why =
        d?.rule === 'evidence' && d.posterior !== undefined && d.threshold !== undefined
          ? `): ${rerunEvidenceText(members, d.posterior, d.threshold, d.sibling)}`
          : ', retries.flaky)';
      return `gate ${d?.gate ?? '?'} failed (${flatStatus(d?.status)}) ${riders}; ${again}${why}`;
    }
    case 'gate_flaky': {
      const d = journalDetail(entry, 'gate_flaky');
      // Runs before the passing one all failed: a train is gated again only after a FAIL.
      const failed = Math.max(1, (d?.passedRun ?? 2) - 1);
      const times = failed === 1 ? 'once' : `${failed} times`;
      return `flaky gate ${d?.gate ?? '?'}: it failed ${times} (${flatStatus(d?.status)}) and then passed on the same tree (run ${String(d?.passedRun ?? '?')} of train ${d?.train ?? '?'}): a flake, not a culprit`;
    }
    default: {
      const d = journalDetail(entry, 'target_flaky');
      return `before failing this job, the target itself was gated: its gate ${d?.gate ?? '?'} failed (${flatStatus(d?.status)}) and then passed on the same tree (run ${String(d?.passedRun ?? '?')} of train ${d?.train ?? '?'}): a flake on the target, which is green`;
    }
  }
}

function noteFor(entry: JournalEntry): StoryEvent | null {
  const at = entry.at;
  switch (entry.event) {
    case 'culprit_found':
      return {
        kind: 'note',
        at,
        event: entry.event,
        text: `the culprit of batch ${journalDetail(entry, 'culprit_found')?.batch ?? '?'} was found; this job goes back through the window with the rest of its batch, ahead of fresh jobs`,
      };
    case 'fast_path_taken': {
      const d = journalDetail(entry, entry.event);
      const proof = d?.proofSource ?? null;
      const source = d?.source === 'cache' ? 'the verdict cache (the same tree was judged before)' : proof ? `a ${proof} proof` : 'a proof';
      return { kind: 'note', at, event: entry.event, text: `judged alone without running a gate: ${source}` };
    }
    case 'judged_from_cache':
      return {
        kind: 'note',
        at,
        event: entry.event,
        text: `judged alone from the verdict cache: the same tree failed in train ${journalDetail(entry, entry.event)?.cachedFrom ?? '?'}`,
      };
    case 'target_red':
      return {
        kind: 'note',
        at,
        event: entry.event,
        text: `the target itself fails its gates: this job waits with the rest of batch ${journalDetail(entry, 'target_red')?.batch ?? '?'} until the target is fixed`,
      };
    case 'gate_rerun':
    case 'gate_flaky':
    case 'target_flaky':
      return { kind: 'note', at, event: entry.event, text: flakeNoteText(entry) };
    case 'regated':
      return { kind: 'note', at, event: entry.event, text: 'judged afresh after `land retry` (a cached verdict was not reused)' };
    case 'cleared': {
      const d = journalDetail(entry, 'cleared');
      const failed = `train ${d?.train ?? '?'} failed (gate ${d?.gate ?? '?'}: ${flatStatus(d?.status)})`;
      return {
        kind: 'note',
        at,
        event: entry.event,
        text: `${failed}, but train ${d?.by ?? '?'}, built on it, passed: this job lands with it (optimistic clearing, policy flaky.clearing)`,
      };
    }
    case 'rebuilt':
      return { kind: 'note', at, event: entry.event, text: 'its record file had vanished; it was rebuilt from the journal' };
    case 'ledger_observed':
      return {
        kind: 'note',
        at,
        event: entry.event,
        text: `the batch stages of train ${journalDetail(entry, 'ledger_observed')?.train ?? '?'} left their ledger observation on the record`,
      };
    case 'uncertain':
    case 'reconciled':
    case 'resolved': {
      // land reconcile's lines (lib/reconcile): what disagreed and what was done about it.
      const d = journalDetail(entry, entry.event);
      const by = d?.by ?? null;
      const said = d?.message ?? describeDetail(entry.detail);
      return { kind: 'note', at, event: entry.event, text: `${entry.event}${by ? ` by ${by}` : ''}: ${said}` };
    }
    default: {
      const detail = describeDetail(entry.detail);
      return { kind: 'note', at, event: entry.event, text: `${entry.event.replace(/_/g, ' ')}${detail ? ` (${detail})` : ''}` };
    }
  }
}

/** One step of a bisection per train of the batch, in the order they ran. */
function bisectionOf(batch: string, rows: readonly TrainRow[], jobId: string): BisectionStep[] {
  return rows
    .filter((row) => row.batch === batch)
    .map((row) => ({
      train: row.train,
      attempt: row.attempt ?? null,
      members: membersOf(row),
      verdict: row.verdict,
      cached: row.cached === true,
      landed: row.landed === true,
      rode: row.members.includes(jobId),
    }));
}

/** A batch was bisected when one of its trains of two or more failed. */
function wasBisected(steps: readonly BisectionStep[]): boolean {
  return steps.some((step) => step.verdict === 'FAIL' && step.members.length > 1);
}

/** The story so far, while the journal is walked: its events, the trains ridden, the ride going on. */
interface Walk {
  input: StoryInput;
  byTrain: ReadonlyMap<string, TrainRow>;
  events: StoryEvent[];
  trains: string[];
  ride: { train: string; judged: boolean } | null;
}

/** A ride ends: its train's verdict is told, once. */
function endRide(walk: Walk): void {
  const { ride } = walk;
  if (!ride || ride.judged) return;
  ride.judged = true;
  const row = walk.byTrain.get(ride.train);
  if (row?.members.includes(walk.input.job.id)) walk.events.push(verdictEvent(row, walk.byTrain, walk.input.job.id));
}

/** The job starts riding a train (or a train that left no record). */
function startRide(walk: Walk, entry: JournalEntry): void {
  const { job, rows } = walk.input;
  const d = journalDetail(entry, 'train_started') ?? {};
  const at = entry.at;
  const train = trainOf(entry, d, job.id, rows);
  if (!train) {
    walk.events.push({
      kind: 'note',
      at,
      event: entry.event,
      text: `rode a train of batch ${d.batch ?? '?'} (round ${d.attempt ?? '?'}) that left no record`,
    });
    walk.ride = null;
    return;
  }
  // Straight from a failed train to the next of its batch: this job is in the first half.
  const previous = walk.ride ? walk.byTrain.get(walk.ride.train) : undefined;
  if (previous && previous.verdict === 'FAIL' && previous.members.includes(job.id) && previous.batch === (d.batch ?? null)) {
    walk.events.push({ kind: 'note', at, event: 'bisected', text: 'its train failed and was split; this job is in the first half, judged next' });
  }
  if (!walk.trains.includes(train)) walk.trains.push(train);
  walk.ride = { train, judged: false };
  walk.events.push(rodeEvent(at, train, d, walk.byTrain.get(train)));
}

/** A requeued or failed line: the job left its train (a conflict is told as one). */
function tellSentBack(walk: Walk, entry: JournalEntry, train: string | null): void {
  const { events } = walk;
  const at = entry.at;
  walk.ride = null;
  const requeued = journalDetail(entry, 'requeued');
  if (requeued) {
    const reason = requeued.reason ?? 'requeued';
    if (reason === 'conflict_with_train') {
      events.push({ kind: 'conflict', at, train, against: requeued.against ?? 'train', paths: requeued.paths ?? [], outcome: 'requeued' });
    } else {
      events.push({ kind: 'requeued', at, reason, train });
    }
    return;
  }
  const d = journalDetail(entry, 'failed');
  const reason = d?.reason ?? null;
  if (reason === 'conflict') {
    events.push({ kind: 'conflict', at, train, against: d?.against ?? 'target', paths: d?.paths ?? [], outcome: 'failed' });
  }
  events.push({ kind: 'failed', at, train, reason, code: d?.code ?? null, message: d?.message ?? null });
}

/** One journal line, told as what it means for the job. */
function tellEntry(walk: Walk, entry: JournalEntry): void {
  const { job } = walk.input;
  const { events } = walk;
  const at = entry.at;
  const train = walk.ride?.train ?? null;
  switch (entry.event) {
    case 'submitted': {
      const d = journalDetail(entry, entry.event);
      events.push({
        kind: 'submitted',
        at,
        by: job.submitter,
        branch: d?.branch ?? job.branch,
        tip: d?.tip ?? null,
        title: job.title === job.branch ? null : job.title,
        fromRecord: false,
        follows: d?.follows ?? job.follows ?? null,
      });
      return;
    }
    case 'tip_updated': {
      const d = journalDetail(entry, entry.event);
      events.push({ kind: 'tip_updated', at, from: d?.from ?? null, to: d?.to ?? null });
      return;
    }
    case 'train_started':
      startRide(walk, entry);
      return;
    case 'requeued':
    case 'failed':
      tellSentBack(walk, entry, train);
      return;
    case 'landed':
    case 'already_contained':
    case 'recovered_landed': {
      const d = journalDetail(entry, entry.event);
      events.push({ kind: 'landed', at, train, commit: d?.train ?? null, via: d?.via ?? null, how: entry.event });
      walk.ride = null;
      return;
    }
    case 'canceled':
      events.push({ kind: 'canceled', at, by: journalDetail(entry, entry.event)?.by ?? null });
      walk.ride = null;
      return;
    case 'stop_requested': {
      const d = journalDetail(entry, entry.event);
      events.push({ kind: 'stop_requested', at, stop: d?.kind ?? 'stop', by: d?.by ?? null, forJob: d?.forJob ?? null });
      return;
    }
    case 'retried':
    case 'resubmitted': {
      const d = journalDetail(entry, entry.event);
      events.push({
        kind: 'retried',
        at,
        how: entry.event,
        by: d?.by ?? null,
        previousState: d?.previousState ?? null,
        previousReason: d?.previousReason ?? null,
      });
      return;
    }
    default: {
      if (QUIET.has(entry.event)) return;
      const note = noteFor(entry);
      if (note) events.push(note);
    }
  }
}

/** A conflict journaled before the journal kept paths: the record's preview names them. */
function fillConflictPaths(events: StoryEvent[], job: JobRecord): void {
  const lastConflict = [...events].reverse().find((event) => event.kind === 'conflict');
  if (lastConflict?.kind === 'conflict' && !lastConflict.paths.length && job.conflictPreview) {
    lastConflict.paths = [...job.conflictPreview.paths];
    lastConflict.against = job.conflictPreview.against;
  }
}

/** Each bisected batch, told once, after the last verdict this job had in it. */
function insertBisections(walk: Walk): void {
  const { events, byTrain } = walk;
  const batches = [...new Set(walk.trains.map((train) => byTrain.get(train)?.batch).filter((b): b is string => typeof b === 'string'))];
  for (const batch of batches) {
    const steps = bisectionOf(batch, walk.input.rows, walk.input.job.id);
    if (!wasBisected(steps)) continue;
    let after = -1;
    events.forEach((event, index) => {
      if (event.kind === 'verdict' && byTrain.get(event.train)?.batch === batch) after = index;
    });
    if (after === -1) continue;
    // A summary of the whole batch, later trains included: it has no time of its own.
    events.splice(after + 1, 0, { kind: 'bisection', at: null, batch, steps });
  }
}

export function buildStory(input: StoryInput): Story {
  const { job } = input;
  const walk: Walk = { input, byTrain: new Map(input.rows.map((row) => [row.train, row])), events: [], trains: [], ride: null };
  const { events } = walk;
  if (!input.journal.some((entry) => entry.event === 'submitted')) {
    events.push({
      kind: 'submitted',
      at: job.timestamps.queued,
      by: job.submitter,
      branch: job.branch,
      tip: null,
      title: job.title === job.branch ? null : job.title,
      fromRecord: true,
      follows: job.follows ?? null,
    });
  }
  for (const entry of input.journal) {
    if (RIDE_ENDS.has(entry.event)) endRide(walk);
    tellEntry(walk, entry);
  }
  endRide(walk);
  fillConflictPaths(events, job);
  insertBisections(walk);
  if (!events.some((event) => event.kind !== 'submitted')) {
    events.push({ kind: 'note', at: null, event: 'no_history', text: 'no history beyond its submission: it has not ridden a train yet' });
  }
  events.push(nowEvent(input, walk.trains));
  return {
    job: { id: job.id, branch: job.branch, tip: job.tip, title: job.title, submitter: job.submitter, state: job.state },
    events,
    trains: walk.trains,
    skippedJournalLines: [...(input.skippedJournalLines ?? [])],
  };
}

function nowEvent(input: StoryInput, trains: readonly string[]): StoryEvent {
  const { job } = input;
  const base = {
    kind: 'now' as const,
    at: null,
    state: job.state,
    position: null,
    train: null,
    log: null,
    commit: null,
    via: null,
    reason: job.reason,
    message: job.error?.message ?? null,
    by: null,
  };
  switch (job.state) {
    case 'queued':
      return { ...base, position: input.position };
    case 'in_progress':
      return { ...base, train: job.batch?.train ?? trains[trains.length - 1] ?? null, log: input.runningLog };
    case 'landed':
      return { ...base, train: trains[trains.length - 1] ?? null, commit: job.train, via: job.landedVia };
    case 'failed':
      return { ...base, train: trains[trains.length - 1] ?? null, log: job.gateLog, ...(job.gateLogTail ? { gateLogTail: [...job.gateLogTail] } : {}) };
    case 'canceled': {
      const canceled = [...input.journal].reverse().find((entry) => entry.event === 'canceled');
      return { ...base, by: canceled ? (journalDetail(canceled, 'canceled')?.by ?? null) : null };
    }
    case 'uncertain':
      return base;
    default: {
      const never: never = job.state;
      return never;
    }
  }
}
