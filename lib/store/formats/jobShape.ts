// A cheap check of a job record's shape, for readers that only count and time records (`land
// stats`, `land report`, `land tune`, through lib/stats/history.ts): the fields they read, with
// their types, without the full schema (jobRecord.ts jobRecordSchema). With 10,000
// records the full schema costs more than reading the files; a record these readers accept may
// still fail it (a malformed object id, say): `land status --all` and `land reconcile` say so.
// Written by hand for its messages (each names the field and what it expected); on the fields it
// covers it agrees with the schema, which test/store/formats/formats.unit.test.ts proves against a pick of it.
import { isRecord as isObject } from './isRecord.js';
import { JOB_STATES, type JobRecord } from './jobRecord.js';

const STATES: ReadonlySet<string> = new Set(JOB_STATES);

const optional = (value: unknown, check: (v: unknown) => boolean) => value === undefined || check(value);
const isString = (value: unknown) => typeof value === 'string';
const stringOrNull = (value: unknown) => value === null || typeof value === 'string';

function flakyProblem(flaky: unknown): string | null {
  if (flaky === undefined) return null;
  if (!isObject(flaky) || !isString(flaky.gate) || !isString(flaky.train)) return 'flaky: expected { gate, train, ... }';
  if (!isObject(flaky.failed) || !isObject(flaky.passed) || !isString(flaky.failed.train) || !isString(flaky.passed.train)) {
    return 'flaky: expected its failed and passed runs';
  }
  return null;
}

/** What is wrong with `raw` as a job record for counting readers, or null when it has their shape. */
export function jobShapeProblem(raw: unknown): string | null {
  if (!isObject(raw)) return 'expected an object';
  if (raw.version !== 1) return 'version: expected 1';
  if (!isString(raw.id)) return 'id: expected a string';
  if (!isString(raw.state) || !STATES.has(raw.state)) return `state: expected one of ${JOB_STATES.join(', ')}`;
  for (const key of ['branch', 'title', 'submitter']) if (!isString(raw[key])) return `${key}: expected a string`;
  if (!stringOrNull(raw.reason)) return 'reason: expected a string or null';
  if (raw.error !== null && !(isObject(raw.error) && isString(raw.error.code) && isString(raw.error.message))) {
    return 'error: expected { code, message } or null';
  }
  const t = raw.timestamps;
  if (!isObject(t) || !isString(t.queued)) return 'timestamps: expected an object with queued';
  for (const key of ['started', 'landed', 'failed', 'canceled', 'reopened']) {
    if (!optional(t[key], isString)) return `timestamps.${key}: expected a string`;
  }
  if (!optional(raw.fastPath, (v) => isObject(v) && typeof v.alone === 'boolean')) return 'fastPath: expected { alone, ... }';
  return flakyProblem(raw.flaky);
}

/** `raw` as a record when it has the counting readers' shape (see the file's comment). */
export function asCountedJob(raw: unknown): { ok: true; job: JobRecord } | { ok: false; problem: string } {
  const problem = jobShapeProblem(raw);
  return problem === null ? { ok: true, job: raw as JobRecord } : { ok: false, problem };
}
