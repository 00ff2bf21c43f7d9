// The fast checks of lib/store/formats/ agree with the schemas they stand in for, on the fields
// they cover: `land stats` reads 10,000 metrics rows with checks generated from the stored row's
// schema (fastCheck.ts), and 10,000 job records with the job shape check (jobShape.ts).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jobShapeProblem } from '../../../lib/store/formats/jobShape.js';
import {
  fieldCheckOf,
  JOURNAL_EVENTS,
  jobRecordSchema,
  journalDetail,
  metricsRowFieldChecks,
  storedMetricsRowSchema,
  type JournalEntry,
} from '../../../lib/store/index.js';
import { job } from '../../helpers/statsFixture.js';

/** Values of every JSON type, including the odd ones old or damaged rows hold. */
const SAMPLES: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  -3,
  1.5,
  '',
  'PASS',
  'merge',
  'a'.repeat(40),
  [],
  ['x', 'y'],
  [1, 2],
  ['x', 1],
  [{}],
  [null],
  {},
  { mode: 'full' },
  [{ run: 1, train: 't', cached: false, results: [] }],
];

/** Whether a field's schema is checked whole by its fast check (no object inside): then the two must agree on every value. */
function isFlat(schema: z.ZodType): boolean {
  const def = schema.def as { type: string; innerType?: z.ZodType; element?: z.ZodType; options?: z.ZodType[] };
  if (def.type === 'object' || def.type === 'record') return false;
  if (def.innerType) return isFlat(def.innerType);
  if (def.element) return isFlat(def.element);
  if (def.options) return def.options.every(isFlat);
  return true;
}

describe('the metrics row fast checks', () => {
  const shape: Record<string, z.ZodType> = storedMetricsRowSchema.shape;

  it('cover every field of the stored row', () => {
    expect(Object.keys(metricsRowFieldChecks).sort()).toEqual(Object.keys(shape).sort());
  });

  it('agree with the schema on every value of a field without objects, and accept whatever the schema accepts', () => {
    for (const [key, schema] of Object.entries(shape)) {
      const check = metricsRowFieldChecks[key] as (v: unknown) => boolean;
      for (const value of SAMPLES) {
        const full = schema.safeParse(value).success;
        if (isFlat(schema)) expect([key, value, check(value)]).toEqual([key, value, full]);
        else if (full) expect([key, value, check(value)]).toEqual([key, value, true]);
      }
    }
  });

  it('refuse a kind of field they cannot check', () => {
    expect(() => fieldCheckOf(z.date())).toThrow(/no fast check/);
  });
});

describe('the job shape check', () => {
  // The fields the shape check covers, picked from the full schema; `id`, `fastPath` and `flaky` it checks more loosely.
  const covered = jobRecordSchema.pick({ version: true, state: true, branch: true, title: true, submitter: true, reason: true, error: true, timestamps: true });
  const good = job(1, 0, { state: 'landed', at: 10 });
  const variants: Record<string, unknown>[] = [
    good,
    { ...good, version: 2 },
    { ...good, state: 'done' },
    { ...good, state: 'queued' },
    { ...good, branch: null },
    { ...good, title: 7 },
    { ...good, submitter: undefined },
    { ...good, reason: 3 },
    { ...good, reason: 'gate' },
    { ...good, error: 'boom' },
    { ...good, error: { code: 'gate', message: 'exit 1' } },
    { ...good, error: { code: 'gate' } },
    { ...good, timestamps: { landed: 'x' } },
    { ...good, timestamps: { queued: 'x', landed: 5 } },
    { ...good, timestamps: { queued: 'x', reopened: 'y' } },
  ];

  it('agrees with the full schema on the fields it covers', () => {
    for (const raw of variants) {
      expect([raw, jobShapeProblem(raw) === null]).toEqual([raw, covered.safeParse(raw).success]);
    }
  });

  it('accepts every record the full schema accepts', () => {
    expect(jobRecordSchema.safeParse(good).success).toBe(true);
    expect(jobShapeProblem(good)).toBeNull();
  });
});

describe('a journal line read by its event', () => {
  const line = (event: string, detail: Record<string, unknown>): JournalEntry => ({
    at: '2026-01-01T00:00:00.000Z',
    kind: 'update',
    job: 'j-1',
    from: 'in_progress',
    to: 'in_progress',
    event,
    detail,
  });

  it('gives the detail of its own event, each field of the type this version writes; null for another event', () => {
    const started = line('train_started', { batch: 'b-1', attempt: 2, train: 'b-1-2', extra: [1] });
    expect(journalDetail(started, 'train_started')).toEqual({ batch: 'b-1', attempt: 2, train: 'b-1-2', extra: [1] });
    expect(journalDetail(started, 'requeued')).toBeNull();
  });

  it('leaves out a field of another type, as a line of an earlier version may hold', () => {
    expect(journalDetail(line('train_started', { batch: 7, attempt: '2' }), 'train_started')).toEqual({});
  });

  it('names every event once', () => {
    expect(new Set(JOURNAL_EVENTS).size).toBe(JOURNAL_EVENTS.length);
    expect(JOURNAL_EVENTS).toContain('submitted');
  });
});
