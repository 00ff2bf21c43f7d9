// `land stats` checks metrics rows with fast checks generated from the stored row's schema
// (lib/store/formats/metricsRow.ts), not with a zod parse, for speed over 10,000 rows. The two must
// read the same fields: the schema's top-level fields are the ones checked (their agreement with the
// schema: test/store/formats/formats.unit.test.ts), a row the schema accepts is kept with the same values, and a
// row without a train's identity is counted, not read.
import { describe, expect, it } from 'vitest';
import { latestWindowAfter, trainRowsOf } from '../../lib/stats/history.js';
import { metricsRowFieldChecks } from '../../lib/store/index.js';
import { parseTrainRows, trainRowSchema } from '../../lib/story/trainRow.js';
import { at, ran } from '../helpers/statsFixture.js';

const row = {
  at: at(5),
  train: 'b-1',
  batch: 'b-1',
  attempt: 1,
  kind: 'train',
  members: ['j-1', 'j-2'],
  branches: ['f1', 'f2'],
  tips: ['a'.repeat(40), 'b'.repeat(40)],
  base: 'c'.repeat(40),
  commit: 'd'.repeat(40),
  tree: 'e'.repeat(40),
  gateSeconds: 1.5,
  cached: false,
  log: 'b-1.log',
  gate: { mode: 'full', results: ran(['test', 1.5]) },
  verdict: 'PASS',
  reason: null,
  landed: true,
  windowAfter: 4,
};

describe('trainRowsOf', () => {
  it("checks exactly the story schema's top-level fields", () => {
    expect(Object.keys(metricsRowFieldChecks).sort()).toEqual(Object.keys(trainRowSchema.shape).sort());
  });

  it('keeps a row the schema accepts, with the same values and its time', () => {
    expect(parseTrainRows([row]).rows).toHaveLength(1);
    const { rows, unreadable } = trainRowsOf([row]);
    expect(unreadable).toBe(0);
    expect(rows).toEqual([{ ...row, time: Date.parse(row.at) }]);
  });

  it('counts a row without a train, verdict, members or time as unreadable', () => {
    const broken = [
      { ...row, train: 7 },
      { ...row, verdict: undefined },
      { ...row, members: ['j-1', 2] },
      { ...row, at: 'yesterday' },
      { ...row, at: undefined },
    ];
    const { rows, unreadable } = trainRowsOf(broken);
    expect(rows).toEqual([]);
    expect(unreadable).toBe(5);
  });

  it('drops an optional field of another type and keeps the row (an older or odd row still counts)', () => {
    const { rows } = trainRowsOf([{ ...row, gateSeconds: 'slow', cached: 'no', branches: [1] }]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).not.toHaveProperty('gateSeconds');
    expect(rows[0]).not.toHaveProperty('cached');
    expect(rows[0]).not.toHaveProperty('branches');
    expect(rows[0]?.members).toEqual(['j-1', 'j-2']);
  });
});

describe("latestWindowAfter (the drainer's window, in a clone of a remote queue that keeps none)", () => {
  it('is the window after the latest train by time, whichever drainer wrote it', () => {
    const { rows } = trainRowsOf([
      { ...row, at: at(9), windowAfter: 2 },
      { ...row, at: at(5), windowAfter: 8 },
      { ...row, at: at(12), windowAfter: undefined },
    ]);
    expect(latestWindowAfter(rows)).toBe(2);
    expect(latestWindowAfter([])).toBeNull();
  });
});
