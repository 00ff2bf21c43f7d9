// How a judged train is settled, as one pure function: from the verdict, the members, the batch's
// attempt, the policy, the window and what the effects around it found (a member withdrawn
// during the gate, the target's own verdict, the CAS), to the record changes, the train's metrics
// row, the events, the window move and what rides next. The train runner (trains/runTrains.ts)
// performs the effects and applies what this returns.
import {
  clearedChanges,
  failChanges,
  flakyChanges,
  landChanges,
  rejoinChanges,
  requeueChanges,
  targetFlakyChanges,
  type JobChange,
} from '../../queue/index.js';
import type { GateRun, JobRecord, MetricsRow, TrainRuns, VoidReason } from '../../store/index.js';
import type { DrainEvent } from '../events.js';
import type { GateFail, GateRefusal, InfraFailure } from '../gates/gateRunner.js';
import type { Judgement } from '../gates/judge.js';
import type { TargetHealth } from '../gates/targetCheck.js';
import type { LandOutcome } from '../../store/index.js';
import { flakeOf, MAX_TRAIN_RUNS, rerunEndText, runsAfter, type RerunEnd } from './flakyPlan.js';
import { splitFailed } from './trainPlan.js';
import { targetCheckedEvent, withdrawals } from './trainSteps.js';
import { addTally, EMPTY_TALLY, expectedRate, windowFor, type CulpritTally, type WindowEvent } from './windowPlan.js';
import { dirtyTargetMessage } from './dirtyTarget.js';

/** The train as the settlement sees it: plain values, read by the runner. */
export interface TrainFacts {
  target: string;
  batchId: string;
  trainId: string;
  attempt: number;
  /** The members as they started the train, in merge order. */
  members: readonly JobRecord[];
  /** The chain that was judged (after refresh entries, when they ran). */
  train: { kind: 'fast-forward' | 'merge'; base: string; commit: string; tree: string };
  policy: { retries: { infra: number; casLost: number }; batch: { max: number } };
  /** The window size before this train settles. */
  window: number;
  /**
   * What the window history records as decided before this train (window.ts recordedTally): the
   * culprit rate the window is sized from. Absent: nothing recorded.
   */
  tally?: CulpritTally;
  /** Halves of this batch waiting in the queue (requeued `bisected`); they rejoin once the culprit is found. */
  waiting: readonly JobRecord[];
  now: string;
  /**
   * The train's gate runs (its first and its flaky re-runs, trains/rerunTrain.ts; the verdict is the
   * last one's) and the runs its members' records counted before. Absent: one run, nothing before.
   */
  runs?: { prior: TrainRuns; history: readonly GateRun[]; ended?: RerunEnd };
  /**
   * Optimistic clearing (pipeline/clearing.ts): this train lands the members of the failed train it
   * was built on too (`members`, ids; `train`, that train's id, which failed `gate` with `status`,
   * its log `log`); they land by that train's own kind of landing.
   */
  cleared?: { members: readonly string[]; kind: TrainKind; train: string; gate: string | null; status: string | null; log: string | null };
}

type TrainKind = TrainFacts['train']['kind'];

/** A landing that cleared the train it was built on: its members' journal lines, written with the landing. */
function clearedOf(facts: TrainFacts): JobChange[] {
  const { cleared } = facts;
  if (!cleared) return [];
  const { train, gate, status, log } = cleared;
  const members = facts.members.filter((job) => cleared.members.includes(job.id));
  return clearedChanges(members, { train, by: facts.trainId, gate, status, log });
}

function clearedEvents(facts: TrainFacts): DrainEvent[] {
  const { cleared } = facts;
  if (!cleared) return [];
  return [
    { type: 'cleared', train: cleared.train, by: facts.trainId, members: [...cleared.members], gate: cleared.gate ?? '?', status: cleared.status ?? 'FAIL' },
  ];
}

/** How a member lands: its train's kind, or, for a member of a cleared train, that train's kind. */
export function landedViaOf(facts: Pick<TrainFacts, 'train' | 'cleared'>, job: Pick<JobRecord, 'id'>): TrainKind {
  return facts.cleared?.members.includes(job.id) ? facts.cleared.kind : facts.train.kind;
}

/** What the effects after the gate found, beyond the verdict itself. */
export type Found =
  /** The verdict alone decides (STOPPED, INFRA, a FAIL of a batch or a refusal). */
  | { step: 'judged' }
  /** A member's stop request arrived during the gate: the run is void. `fresh`: the members re-read. */
  | { step: 'withdrawn'; fresh: readonly JobRecord[] }
  /** A lone job failed: the target's own gates were asked (trains/runTrains.ts, gates/targetCheck.ts). */
  | { step: 'target_checked'; health: TargetHealth }
  /** A PASS: the compare-and-swap of the target was tried. */
  | { step: 'landing'; outcome: LandOutcome };

export type StopWhy = 'target_dirty' | 'hook_off' | 'interrupted' | 'lock_lost' | 'target_red';

/** What the batch does after this train. */
export type Next =
  /** A failed batch was split: its first half is the next train, at once. */
  | { next: 'first_half'; members: JobRecord[]; attempt: number; requeued: JobRecord[] }
  /** The train landed; publish it, and the batch is done. */
  | { next: 'publish'; commit: string }
  /** `infra`: the reason of a train that tested nothing (the drain backs off before the next). */
  | { next: 'done'; infra?: string }
  | { next: 'stop'; why: StopWhy; message: string };

export interface Settlement {
  changes: JobChange[];
  /** The train's one metrics row, written under the same lock as the changes (a void run's: verdict VOID, voidRow). */
  metric: MetricsRow | null;
  /** Reported after the changes are on disk, in this order. */
  events: DrainEvent[];
  /** The window change to persist (history kept even when the size stays), with what the train decided. */
  window: { event: WindowEvent; before: number; after: number; decided: CulpritTally } | null;
  next: Next;
}

/** Which effect the runner performs before settling: the target's own check, the CAS, or none. */
export function effectNeeded(judgement: Judgement, members: readonly JobRecord[]): 'target_check' | 'landing' | 'none' {
  if (judgement.verdict === 'PASS') return 'landing';
  if (judgement.verdict === 'FAIL' && members.length === 1 && judgement.failure.kind === 'fail') return 'target_check';
  return 'none';
}

export function settleTrain(facts: TrainFacts, judgement: Judgement, found: Found): Settlement {
  if (found.step === 'withdrawn') return settleWithdrawn(facts, judgement, found.fresh);
  switch (judgement.verdict) {
    case 'STOPPED':
      return settleStopped(facts, judgement);
    case 'INFRA':
      return settleInfra(facts, judgement, judgement.failure);
    case 'FAIL':
      return settleFail(facts, judgement, judgement.failure, found.step === 'target_checked' ? found.health : null);
    case 'PASS':
      if (found.step !== 'landing') throw new Error('a PASS is settled after its landing');
      return settleLanding(facts, judgement, found.outcome);
    default: {
      const never: never = judgement;
      throw new Error(`unknown verdict ${JSON.stringify(never)}`);
    }
  }
}

const ids = (jobs: readonly JobRecord[]) => jobs.map((job) => job.id);

/** The train's run count once this judgement is counted (kept on the members' records). */
const trainRunsOf = (facts: TrainFacts): TrainRuns | undefined => (facts.runs ? runsAfter(facts.runs.prior, facts.runs.history) : undefined);

/** More than one run of the same tree: how the failure message says it, and why the runs stopped. */
function runsNote(facts: TrainFacts): string {
  const runs = facts.runs?.history ?? [];
  if (runs.length <= 1) return '';
  const ended = facts.runs?.ended;
  return `; failed all ${runs.length} runs of the same tree (${ended ? rerunEndText(ended) : 'policy flaky'})`;
}

/** What the settlement of a PASS after a failed run keeps of the flake on the members (record and journal). */
function flakyOf(facts: TrainFacts): JobChange[] {
  const flake = flakeOf(facts.runs?.history ?? [], facts.train.tree);
  return flake ? flakyChanges(facts.members, flake) : [];
}

/** Back to the head of the queue at the same attempt, riding together. */
function sameAttempt(facts: TrainFacts, jobs: readonly JobRecord[]) {
  return { id: facts.batchId, members: jobs, attempt: facts.attempt };
}

/**
 * The train's metrics row. Enough to tell the train's story (`land why`) and rebuild it (`land
 * repro`): members in merge order with the tips that were merged, the kind of chain, and the log
 * the verdict is in.
 */
function metricRow(facts: RowFacts, judgement: Judgement, row: Pick<MetricsRow, 'verdict' | 'reason' | 'windowBefore' | 'windowAfter' | 'landed'>): MetricsRow {
  const { members, train } = facts;
  const runs = facts.runs?.history ?? [];
  const many = runs.length > 1;
  return {
    at: facts.now,
    train: facts.trainId,
    batch: facts.batchId,
    attempt: facts.attempt,
    kind: train.kind,
    members: ids(members),
    branches: members.map((m) => m.branch),
    tips: members.map((m) => m.tip),
    base: train.base,
    commit: train.commit,
    tree: train.tree,
    gateSeconds: many ? Math.round(runs.reduce((sum, r) => sum + r.seconds, 0) * 100) / 100 : judgement.seconds,
    cached: many ? runs.every((r) => r.cached) : judgement.cached,
    log: judgement.log,
    gate: judgement.telemetry,
    flaky: flakeOf(runs, train.tree) !== null,
    ...(many ? { runs: [...runs] } : {}),
    ...row,
  };
}

/** What a train's row is made of besides its judgement. */
export type RowFacts = Pick<TrainFacts, 'now' | 'trainId' | 'batchId' | 'attempt' | 'members' | 'train' | 'runs' | 'window'>;

/**
 * The row of a train whose run is void (docs/stats.md, "Trains by outcome"): stopped by a signal
 * (`interrupted`), a member canceled or stopped during its gates (`withdrawn`), or a speculative
 * train abandoned because a train ahead did not land (`speculation_abandoned`). Nothing it found
 * counts (no verdict, no window move: before = after), but the gates it ran were spent: the row
 * keeps them (`gate`, `gateSeconds`, `runs`) for `land stats`'s gate runs, and its log for `land
 * log` and `land gc`.
 */
export function voidRow(facts: RowFacts, judgement: Judgement, reason: VoidReason): MetricsRow {
  return metricRow(facts, judgement, { verdict: 'VOID', reason, windowBefore: facts.window, windowAfter: facts.window, landed: false });
}

/**
 * The window after a train that decided jobs (`decided`: its landed members, or its one culprit):
 * sized from the culprit rate of everything recorded, this train included (plan/windowPlan.ts).
 * Cached verdicts count: a culprit failed by the cache is still a culprit. A train that decided
 * nothing (a batch that fails and splits, a refusal, an infrastructure failure) moves nothing.
 */
function windowMove(facts: TrainFacts, event: WindowEvent, decided: CulpritTally): Settlement['window'] {
  const after = windowFor(addTally(facts.tally ?? EMPTY_TALLY, decided), facts.policy.batch.max);
  return { event, before: facts.window, after, decided };
}

function windowEvents(move: Settlement['window']): DrainEvent[] {
  return move && move.before !== move.after ? [{ type: 'window', before: move.before, after: move.after, event: move.event }] : [];
}

/** A signal stopped the gate: the members go back at the same attempt; nothing is known (a void row keeps what ran). */
function settleStopped(facts: TrainFacts, judgement: Judgement): Settlement {
  return {
    changes: requeueChanges(facts.members, { reason: 'interrupted', toHead: true, batch: sameAttempt(facts, facts.members) }),
    metric: voidRow(facts, judgement, 'interrupted'),
    events: [{ type: 'requeued', train: facts.trainId, jobs: ids(facts.members), reason: 'interrupted' }],
    window: null,
    next: { next: 'stop', why: 'interrupted', message: 'the gate was stopped by a signal' },
  };
}

/**
 * A member stopped while the gate ran voids the run (the gate judged a tree that will not land):
 * the stopped ones are settled, the others go back at the same attempt, and the window stays.
 */
function settleWithdrawn(facts: TrainFacts, judgement: Judgement, fresh: readonly JobRecord[]): Settlement {
  const out = withdrawals(fresh);
  const changes = [...out.changes];
  const events = [...out.events];
  if (out.live.length) {
    changes.push(...requeueChanges(out.live, { reason: 'withdrawn', toHead: true, batch: sameAttempt(facts, out.live) }));
    events.push({ type: 'requeued', train: facts.trainId, jobs: ids(out.live), reason: 'a member withdrew during the gate; run void' });
  }
  return { changes, metric: voidRow(facts, judgement, 'withdrawn'), events, window: null, next: { next: 'done' } };
}

/** Nothing was tested: the members go back (counted against retries.infra), or fail past it. */
function settleInfra(facts: TrainFacts, judgement: Judgement, failure: InfraFailure): Settlement {
  const { retries } = facts.policy;
  const trainRuns = trainRunsOf(facts);
  // Whatever the reasons, a train is gated at most MAX_TRAIN_RUNS times: an infra requeue rebuilds the same train.
  const capped = trainRuns !== undefined && trainRuns.runs >= MAX_TRAIN_RUNS;
  const over = facts.members.filter((job) => capped || (job.requeues.infra ?? 0) + 1 > retries.infra);
  const again = facts.members.filter((job) => !over.includes(job));
  const message = `gate ${failure.gate}: ${failure.status} (${failure.reason})${failure.stderr ? `: ${failure.stderr}` : ''}; nothing was tested`;
  const gaveUp = capped ? `gave up: this train was gated ${MAX_TRAIN_RUNS} times` : `gave up after ${retries.infra} retries`;
  const events: DrainEvent[] = again.length ? [{ type: 'requeued', train: facts.trainId, jobs: ids(again), reason: message }] : [];
  for (const job of over) events.push({ type: 'failed', job: job.id, reason: 'infra', message, gate: failure.gate, status: failure.status });
  return {
    changes: [
      ...requeueChanges(again, { reason: failure.reason, toHead: true, batch: sameAttempt(facts, again), countAs: 'infra', trainRuns }),
      ...failChanges(over, {
        reason: 'infra',
        code: failure.reason,
        message: `${message}; ${gaveUp}`,
        gateLog: judgement.log,
        gateLogTail: judgement.gateLogTail,
        trainRuns,
      }),
    ],
    metric: metricRow(facts, judgement, { verdict: 'INFRA', reason: failure.reason, windowBefore: facts.window, windowAfter: facts.window, landed: false }),
    events,
    window: null,
    next: { next: 'done', infra: failure.reason },
  };
}

/**
 * A FAIL. A lone job whose target is itself red (or whose target check was stopped) is not
 * judged; otherwise the window is sized first, then a singleton or a refusal fails its members and
 * the rest of the batch rejoins, and a batch is split (splitFor): the first part rides next.
 */
function settleFail(facts: TrainFacts, judgement: Judgement, failure: GateFail | GateRefusal, health: TargetHealth | null): Settlement {
  const checked = health ? [targetCheckedEvent(facts.target, facts.train.base, health)] : [];
  if (health && (health.kind === 'red' || health.kind === 'stopped')) return sendBackUnjudged(facts, judgement, failure, health, checked);
  const note = health?.kind === 'unknown' ? `; ${facts.target} itself could not be gated (${health.status})` : '';
  const message = `gate ${failure.gate}: ${failure.status}${judgement.log ? `; log ${judgement.log}` : ''}${runsNote(facts)}${note}`;
  const { members, train } = facts;
  const culprit = members.length === 1 && failure.kind !== 'refused';
  const window = culprit ? windowMove(facts, 'FAIL', { jobs: 1, culprits: 1 }) : null;
  const events = [...checked, ...windowEvents(window)];
  const metric = metricRow(facts, judgement, {
    verdict: 'FAIL',
    reason: failure.reason,
    windowBefore: window?.before ?? facts.window,
    windowAfter: window?.after ?? facts.window,
    landed: false,
  });
  if (members.length === 1 || failure.kind === 'refused') {
    // The culprit is found: the rest of its batch, waiting in halves, rides together next.
    for (const job of members) events.push({ type: 'failed', job: job.id, reason: failure.reason, message, gate: failure.gate, status: failure.status });
    // A flake the target check met on the target's tree (green after a re-run) is told in the job's journal.
    const targetFlake = health?.kind === 'green' && health.flake ? targetFlakyChanges(members, health.flake) : [];
    return {
      changes: [
        ...targetFlake,
        ...failChanges(members, {
          reason: failure.reason,
          code: failure.reason,
          message,
          gateLog: judgement.log,
          gateLogTail: judgement.gateLogTail,
          verdict: 'FAIL',
          tree: train.tree,
          base: train.base,
          gate: judgement.telemetry,
          trainRuns: trainRunsOf(facts),
        }),
        ...rejoinChanges(facts.waiting, facts.batchId, 'culprit_found'),
      ],
      metric,
      events,
      window,
      next: { next: 'done' },
    };
  }
  const { first, second } = splitFailed(members, expectedRate(facts.tally ?? EMPTY_TALLY));
  events.push({ type: 'bisected', train: facts.trainId, attempt: facts.attempt, first: ids(first), second: ids(second) });
  return {
    changes: requeueChanges(second, { reason: 'bisected', toHead: true, batch: { id: facts.batchId, members: second, attempt: facts.attempt + 1 } }),
    metric,
    events,
    window,
    next: { next: 'first_half', members: first, attempt: facts.attempt + 1, requeued: second },
  };
}

/** Why the drain stopped for a red target (`land run`'s last line, exit 10). */
export function redTargetMessage(target: string, base: string, red: TargetHealth & { kind: 'red' }): string {
  const fix = `fix ${target} (or install what its gates need), then run land again: it gates ${target} again`;
  return `${target} itself fails gate ${red.gate} (${red.status}) at ${base.slice(0, 12)}; log ${red.log ?? '(none)'}; ${fix}; no job was failed`;
}

/**
 * A job that failed alone on a red target (or whose target check was stopped) is not judged: it
 * goes back to the head of the queue at the same attempt, counted against no retry, and the rest
 * of its batch waiting in halves rejoins it, so once the target is fixed the batch rides whole.
 * The verdict moves nothing, the window included.
 */
function sendBackUnjudged(
  facts: TrainFacts,
  judgement: Judgement,
  failure: GateFail | GateRefusal,
  health: TargetHealth & { kind: 'red' | 'stopped' },
  checked: DrainEvent[],
): Settlement {
  const { target, train } = facts;
  const job = facts.members[0] as JobRecord;
  const red = health.kind === 'red' ? health : null;
  const reason = red ? 'target_red' : 'interrupted';
  const targetCheck = red ? { target, base: train.base, gate: red.gate, status: red.status, log: red.log, judgedBy: red.train, cached: red.cached } : undefined;
  return {
    changes: [
      ...requeueChanges([job], { reason, toHead: true, batch: sameAttempt(facts, [job]), targetCheck, trainRuns: trainRunsOf(facts) }),
      ...(red ? rejoinChanges(facts.waiting, facts.batchId, 'target_red') : []),
    ],
    metric: metricRow(facts, judgement, {
      verdict: 'FAIL',
      reason: red ? 'target_red' : failure.reason,
      windowBefore: facts.window,
      windowAfter: facts.window,
      landed: false,
    }),
    events: [
      ...checked,
      { type: 'requeued', train: facts.trainId, jobs: [job.id], reason: red ? `${target} itself is red; not this job's fault` : 'interrupted' },
    ],
    window: null,
    next: red
      ? {
          next: 'stop',
          why: 'target_red',
          message: redTargetMessage(target, train.base, red),
        }
      : { next: 'stop', why: 'interrupted', message: 'the gate was stopped by a signal' },
  };
}

/** The metrics row of a PASS that did not land: the window stays. */
function unlandedRow(facts: TrainFacts, judgement: Judgement, reason: string): MetricsRow {
  return metricRow(facts, judgement, { verdict: 'PASS', reason, windowBefore: facts.window, windowAfter: facts.window, landed: false });
}

/** A PASS whose landing was not tried (`why` says why): the members go back to the head uncounted, and the drain stops. */
function notTried(facts: TrainFacts, judgement: Judgement, why: 'target_dirty' | 'hook_off', message: string): Settlement {
  const { members, trainId } = facts;
  return {
    changes: [...flakyOf(facts), ...requeueChanges(members, { reason: why, toHead: true, batch: sameAttempt(facts, members) })],
    metric: unlandedRow(facts, judgement, why),
    events: [{ type: 'requeued', train: trainId, jobs: ids(members), reason: why }],
    window: null,
    next: { next: 'stop', why, message },
  };
}

/** A PASS after its compare-and-swap: landed (the window grows), lost (rebuild), or not tried: a dirty target checkout or land's hook switched off (stop). */
function settleLanding(facts: TrainFacts, judgement: Judgement, outcome: LandOutcome): Settlement {
  const { members, train, trainId } = facts;
  switch (outcome.kind) {
    case 'lost': {
      const { casLost } = facts.policy.retries;
      const over = members.filter((job) => (job.requeues.casLost ?? 0) + 1 > casLost);
      const again = members.filter((job) => !over.includes(job));
      return {
        changes: [
          ...flakyOf(facts),
          ...requeueChanges(again, { reason: 'cas_lost', toHead: true, batch: sameAttempt(facts, again), countAs: 'casLost' }),
          ...failChanges(over, { reason: 'cas_lost', code: 'cas_lost', message: `the target kept moving; gave up after ${casLost} rebuilds` }),
        ],
        metric: unlandedRow(facts, judgement, 'cas_lost'),
        events: [
          {
            type: 'requeued',
            train: trainId,
            jobs: ids(again),
            reason: `the target moved to ${outcome.actual?.slice(0, 12) ?? '(deleted)'} during the gate; rebuilding`,
          },
        ],
        window: null,
        next: { next: 'done' },
      };
    }
    case 'target_dirty':
      return notTried(facts, judgement, 'target_dirty', dirtyTargetMessage(facts.target, outcome.worktree, true));
    case 'hook_off':
      return notTried(facts, judgement, 'hook_off', outcome.message);
    case 'landed': {
      const window = windowMove(facts, 'PASS', { jobs: members.length, culprits: 0 });
      return {
        changes: [
          ...flakyOf(facts),
          ...clearedOf(facts),
          ...members.flatMap((job) =>
            landChanges([job], {
              via: landedViaOf(facts, job),
              base: train.base,
              tree: train.tree,
              train: train.commit,
              gateLog: judgement.log,
              gate: judgement.telemetry,
              verdict: 'PASS',
              trainRuns: trainRunsOf(facts),
            }),
          ),
        ],
        metric: metricRow(facts, judgement, {
          verdict: 'PASS',
          reason: null,
          windowBefore: window?.before ?? facts.window,
          windowAfter: window?.after ?? facts.window,
          landed: true,
        }),
        events: [
          ...clearedEvents(facts),
          ...(outcome.warning ? [{ type: 'warning' as const, message: outcome.warning }] : []),
          { type: 'landed', train: trainId, commit: train.commit, via: train.kind, members: ids(members) },
          ...windowEvents(window),
        ],
        window,
        next: { next: 'publish', commit: train.commit },
      };
    }
    default: {
      const never: never = outcome;
      throw new Error(`unknown landing ${JSON.stringify(never)}`);
    }
  }
}
