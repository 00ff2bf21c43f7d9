// A train's verdict and how it was reached, as every stage of the judging (./judge.ts) returns it.
// Made by one constructor, so each fact has its default in one place.
import type { GateTelemetry, LedgerObservations } from '../../store/index.js';
import type { Verdicted } from './gateRunner.js';

/** The train after refresh entries (a new commit on top), when they changed it. */
export type RefreshedTrain = { commit: string; tree: string; entries: string[] } | null;

/** What a judgement found besides its verdict. */
export interface JudgementFacts {
  cached: boolean;
  seconds: number;
  log: string | null;
  telemetry: GateTelemetry;
  /** Ledger lines of batch stages that ran, by gate name. */
  ledger: LedgerObservations | null;
  refreshed: RefreshedTrain;
  /**
   * A FAIL or INFRA: the excerpt of the deciding gate's output in the stored log, its failure
   * lines then its last lines (./logTail.ts), for the failed members' records; absent when there
   * is no log on this machine.
   */
  gateLogTail?: string[];
}

/** A train's verdict with the failure that goes with it (none for PASS), and how it was reached. */
export type Judgement = Verdicted & JudgementFacts;

/** What a stage says about its judgement; left out: no gate seconds, no ledger line, the train not refreshed. */
export type JudgementParts = Pick<JudgementFacts, 'cached' | 'log' | 'telemetry'> & Partial<Pick<JudgementFacts, 'seconds' | 'ledger' | 'refreshed'>>;

/** The one constructor of a Judgement. */
export function judgementOf(outcome: Verdicted, parts: JudgementParts): Judgement {
  return {
    ...outcome,
    cached: parts.cached,
    seconds: parts.seconds ?? 0,
    log: parts.log,
    telemetry: parts.telemetry,
    ledger: parts.ledger ?? null,
    refreshed: parts.refreshed ?? null,
  };
}
