// What a reader of published refs reads and what it skips, by type and size alone (formats/published.ts).
import { describe, expect, it } from 'vitest';
import {
  logSkipReason,
  METRICS_MESSAGE_MAX_BYTES,
  METRICS_READ_MAX_BYTES,
  metricsCommitsToRead,
  READ_LOG_MAX_BYTES,
  rememberSkipped,
  SKIPPED_KEPT_MAX,
} from '../../../lib/store/formats/published.js';

describe('logSkipReason', () => {
  it('reads a blob within the cap, skips anything else', () => {
    expect(logSkipReason({ type: 'blob', size: READ_LOG_MAX_BYTES })).toBeNull();
    expect(logSkipReason({ type: 'blob', size: READ_LOG_MAX_BYTES + 1 })).toMatch(/^holds a log of \d+ bytes, more than/);
    expect(logSkipReason({ type: 'tree', size: 10 })).toBe('holds a tree where its log file should be');
    expect(logSkipReason(null)).toBe('holds no log file');
  });
});

describe('metricsCommitsToRead', () => {
  it('skips a commit too large or skipped before, keeps the order', () => {
    const commits = [
      { oid: 'a', size: 100 },
      { oid: 'b', size: METRICS_MESSAGE_MAX_BYTES + 1 },
      { oid: 'c', size: 100 },
      { oid: 'd', size: 100 },
    ];
    expect(metricsCommitsToRead(commits, new Set(['c']))).toEqual({ read: ['a', 'd'], tooLarge: ['b'], leftOut: 0 });
  });

  it('reads the newest commits within the byte budget and leaves the older ones out', () => {
    const size = METRICS_MESSAGE_MAX_BYTES;
    const count = Math.floor(METRICS_READ_MAX_BYTES / size);
    const commits = Array.from({ length: count + 2 }, (_, i) => ({ oid: `c${i}`, size }));
    const pick = metricsCommitsToRead(commits, new Set());
    expect(pick.leftOut).toBe(2);
    expect(pick.read).toEqual(commits.slice(2).map((commit) => commit.oid));
  });
});

describe('rememberSkipped', () => {
  it('adds new ids once and keeps the newest SKIPPED_KEPT_MAX', () => {
    expect(rememberSkipped(['a'], ['a', 'b'])).toEqual(['a', 'b']);
    const many = Array.from({ length: SKIPPED_KEPT_MAX }, (_, i) => `o${i}`);
    const kept = rememberSkipped(many, ['new']);
    expect(kept).toHaveLength(SKIPPED_KEPT_MAX);
    expect(kept.at(-1)).toBe('new');
    expect(kept[0]).toBe('o1');
  });
});
