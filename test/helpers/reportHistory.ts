// A synthetic History for the report's pure tests: no git, no state folder. Jobs and trains are
// built from a few fields; everything else has the shape the drain writes.
import type { HistoryTrain } from '../../lib/stats/history.js';
import { newJobRecord } from '../../lib/queue/index.js';
import type { JobRecord, WindowHistoryEntry } from '../../lib/store/index.js';

export const T0 = Date.parse('2026-11-30T10:00:00Z');
const SHA = 'a'.repeat(40);
export const iso = (offsetSeconds: number): string => new Date(T0 + offsetSeconds * 1000).toISOString();

export function job(
  id: string,
  fields: { branch?: string; state: JobRecord['state']; queued: number; ended?: number; reason?: string; message?: string },
): JobRecord {
  const timestamps: JobRecord['timestamps'] = { queued: iso(fields.queued) };
  if (fields.ended !== undefined && (fields.state === 'landed' || fields.state === 'failed' || fields.state === 'canceled')) {
    timestamps[fields.state] = iso(fields.ended);
  }
  return {
    ...newJobRecord({ id, branch: fields.branch ?? id, tip: SHA, title: id, submitter: 'dev@land.invalid', urgent: false }),
    state: fields.state,
    reason: fields.reason ?? null,
    error: fields.message ? { code: fields.reason ?? 'gate', message: fields.message } : null,
    attempts: 1,
    timestamps,
  };
}

type GateResults = { name: string; status: string; seconds: number }[];

export function train(
  id: string,
  at: number,
  fields: {
    members: string[];
    branches?: string[];
    verdict?: string;
    reason?: string | null;
    landed?: boolean;
    cached?: boolean;
    source?: 'proof' | 'cache';
    results?: GateResults;
    runs?: { cached: boolean; results: GateResults }[];
    windowAfter?: number;
  },
): HistoryTrain {
  const results = (fields.results ?? []).map((r) => ({ ...r, outcome: 'exited' as const }));
  const gate = fields.cached
    ? { mode: 'cached' as const, source: fields.source ?? 'cache', executed: [] }
    : { mode: 'full' as const, executed: results.map((r) => r.name), results };
  const row: HistoryTrain = {
    at: iso(at),
    time: T0 + at * 1000,
    train: id,
    members: fields.members,
    branches: fields.branches,
    verdict: fields.verdict ?? 'PASS',
    reason: fields.reason ?? null,
    landed: fields.landed ?? (fields.verdict ?? 'PASS') === 'PASS',
    cached: fields.cached ?? false,
    gate,
    windowBefore: 4,
  };
  if (fields.windowAfter !== undefined) row.windowAfter = fields.windowAfter;
  if (fields.runs)
    row.runs = fields.runs.map((run, i) => ({ run: i + 1, train: id, cached: run.cached, results: run.results.map((r) => ({ ...r, outcome: 'exited' })) }));
  return row;
}

export function windowEntry(at: number, event: WindowHistoryEntry['event'], before: number, after: number): WindowHistoryEntry {
  return {
    at: iso(at),
    event,
    before,
    after,
    train: event === 'PASS' || event === 'FAIL' ? 't' : null,
    ...(event === 'set' || event === 'reset' ? { by: 'dev@land.invalid' } : {}),
  };
}

/** An empty History at T0 with `parts` over it: the stats tests' own (the same T0). */
export { history } from './statsFixture.js';
