import { describe, expect, it } from 'vitest';
import { LandError } from '../../lib/errors.js';
import { nonexistentDate, parseSince } from '../../lib/stats/since.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');

/** The usage error parseSince gives for `bad` (the test fails when it gives none, or another). */
function usageErrorOf(bad: string): LandError {
  let error: unknown = null;
  try {
    parseSince(bad, NOW);
  } catch (caught) {
    error = caught;
  }
  expect(error, bad).toBeInstanceOf(LandError);
  expect((error as LandError).code, bad).toBe('usage');
  return error as LandError;
}

describe('parseSince', () => {
  it('takes spans back from now', () => {
    expect(parseSince('90m', NOW)).toBe(NOW - 90 * 60_000);
    expect(parseSince('24h', NOW)).toBe(NOW - 86_400_000);
    expect(parseSince('7d', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(parseSince('2w', NOW)).toBe(NOW - 14 * 86_400_000);
  });

  it('takes ISO dates and times', () => {
    expect(parseSince('2026-11-01T00:00:00Z', NOW)).toBe(Date.parse('2026-11-01T00:00:00Z'));
    expect(parseSince('2026-11-01T10:30Z', NOW)).toBe(Date.parse('2026-11-01T10:30Z'));
    expect(parseSince('2026-11-01', NOW)).toBe(Date.parse('2026-11-01'));
    // Without a zone a date and time is UTC, whatever the machine's zone.
    expect(parseSince('2026-11-01T10:30', NOW)).toBe(Date.parse('2026-11-01T10:30Z'));
    expect(parseSince('2026-11-01 10:30:15', NOW)).toBe(Date.parse('2026-11-01T10:30:15Z'));
    expect(parseSince('2026-11-01T10:30+02:00', NOW)).toBe(Date.parse('2026-11-01T08:30Z'));
  });

  it('refuses anything else with a usage error that names the value', () => {
    for (const bad of ['yesterday', '7', '7y', '-1d', '2026-13-01', '2026-12-25', '', '1d; rm -rf /']) {
      expect(usageErrorOf(bad).message).toContain('--since');
    }
  });

  it('refuses a calendar date or time that does not exist, naming the value (no rolling over into the next month)', () => {
    const refused: [string, string][] = [
      ['2026-02-30', 'February 2026 has 28 days'],
      ['2026-02-29', 'February 2026 has 28 days'],
      ['2026-04-31', 'April 2026 has 30 days'],
      ['2026-13-01', 'there is no month 13'],
      ['2026-00-10', 'there is no month 00'],
      ['2026-11-00', 'there is no day 00'],
      ['2026-11-01T25:00Z', 'there is no hour 25'],
      ['2026-11-01T24:00', 'there is no hour 24'],
      ['2026-11-01T10:60', 'there is no minute 60'],
      ['2026-11-01 10:30:61', 'there is no second 61'],
    ];
    for (const [bad, why] of refused) {
      expect(usageErrorOf(bad).message).toBe(`--since: ${JSON.stringify(bad)} is not a date that exists (${why})`);
    }
    expect(parseSince('2024-02-29', NOW)).toBe(Date.parse('2024-02-29T00:00Z')); // a leap year
    expect(parseSince('2000-02-29T23:59:59Z', NOW)).toBe(Date.parse('2000-02-29T23:59:59Z')); // divisible by 400
    expect(nonexistentDate('1900-02-29')).toBe('February 1900 has 28 days'); // divisible by 100
    expect(nonexistentDate('2026-12-31T23:59:59.999+02:00')).toBeNull();
    expect(nonexistentDate('Jan 1 2026')).toBeNull(); // not an ISO date: not this check's to judge
  });
});
